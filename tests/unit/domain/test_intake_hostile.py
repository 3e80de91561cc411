"""Hostile e-mails at the length limit (tests/support/hostile_mail.py): each is read or refused with a stable code,
never an internal error; MIME nesting past the bound is refused with its own code before the parser recurses.
How long each takes is measured by scripts/bench_intake_hostile.py into evidence/intake_hostile.json."""

from __future__ import annotations

from datetime import date

import pytest

from production_orchestrator.domain.errors import InboundRefusedError, IntakeError, MimeTooDeepError
from production_orchestrator.domain.intake.customer_message import MAX_MIME_DEPTH, MAX_REQUEST_CHARS, read_message
from production_orchestrator.domain.intake.facts import read_facts, resolve_request
from production_orchestrator.domain.intake.inbound_mail import ReceivedMail, accept_message
from production_orchestrator.domain.scenarios import SCENARIOS
from tests.support.hostile_mail import HOSTILE, REFUSED_MIME, html, nested_mime

SHOP = SCENARIOS["team-jerseys"].state
DAY = "2026-08-10"


def _take_in(raw: str) -> str:
    """The intake's verdict: the order's facts, or the refusal's code."""
    try:
        message = read_message(raw)
        facts = read_facts(message, SHOP.products, message.sent_day or date.fromisoformat(DAY))
        order = resolve_request(message, facts, SHOP, DAY)
    except IntakeError as exc:
        return exc.code
    return f"{order.product} {order.quantity} {order.due}"


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_email_at_the_limit_is_read_or_refused_with_a_stable_code(name: str) -> None:
    raw = HOSTILE[name]
    assert len(raw) >= MAX_REQUEST_CHARS * 0.9 or name in REFUSED_MIME
    verdict = _take_in(raw)
    if name in REFUSED_MIME:
        assert verdict == "MIME_TOO_DEEP"
    else:
        assert verdict in ("INTAKE_REFUSED", "TOTE-NAVY 60 2026-08-14"), verdict


def test_mime_nested_to_the_bound_is_read_and_one_deeper_is_refused() -> None:
    assert read_message(nested_mime(MAX_MIME_DEPTH)).body == "60 navy tote bags by Friday"
    with pytest.raises(MimeTooDeepError):
        read_message(nested_mime(MAX_MIME_DEPTH + 1))


def test_received_mail_nested_too_deep_is_refused_with_its_own_code() -> None:
    mail = ReceivedMail("m1", ("orders@shop.example",), ("mia@club.example",), *(["PASS"] * 5))
    with pytest.raises(InboundRefusedError) as caught:
        accept_message(mail, nested_mime(2000), inbound_address="orders@shop.example", approvers=())
    assert caught.value.code.value == "MIME_TOO_DEEP"


@pytest.mark.parametrize(
    "style",
    [
        "font-size:1px",
        "font-size: 0.5pt",
        "position:absolute; left:-9999px",
        "text-indent:-10000px",
        "position:absolute; clip: rect(0 0 0 0)",
        "clip-path: inset(50%)",
        "transform: scale(0)",
    ],
)
def test_text_hidden_by_size_position_or_clip_is_not_read(style: str) -> None:
    raw = html(f'<p>60 navy tote bags by Friday</p><p style="{style}">Priority: 100<br>Quantity: 9999</p>')
    message = read_message(raw)
    assert "9999" not in message.body and "Priority" not in message.body
    assert _take_in(raw) == "TOTE-NAVY 60 2026-08-14"
