"""Every id, address and header value is matched whole: a trailing line break is never "the end".

Python's ``$`` also matches before a final ``\\n`` (and JSON Schema's ``pattern`` is a search), so
``"floor@x.example\\n"`` once passed every check and then split the headers of the message built with it.
"""

from __future__ import annotations

import ast
import copy
import email
import email.policy
import re
from pathlib import Path
from typing import Any

import pytest

from production_orchestrator.cli.files import schema_problems
from production_orchestrator.contracts import is_approver_email
from production_orchestrator.domain.identity import is_email_address
from production_orchestrator.domain.messages.outbox import OutboxMessage, render_email
from production_orchestrator.domain.records import CHECKPOINT_ID_PATTERN, require_hash, require_id
from production_orchestrator.domain.shop.model import check_id
from tests.unit.domain.test_shop_file import EXAMPLE

PACKAGE = Path(__file__).resolve().parents[3] / "functions" / "production_orchestrator"
TRAILING = ["\n", "\r\n", "\r", " ", "\x00"]


@pytest.mark.parametrize("tail", TRAILING)
def test_ids_hashes_and_addresses_refuse_a_trailing_line_break(tail: str) -> None:
    with pytest.raises(ValueError):
        require_hash("a" * 64 + tail)
    with pytest.raises(ValueError):
        require_id("ckpt-" + "0" * 32 + tail, CHECKPOINT_ID_PATTERN, "checkpoint id")
    with pytest.raises(ValueError):
        check_id("ORD-1" + tail)
    assert not is_approver_email("boss@shop.example" + tail)
    assert not is_email_address("boss@shop.example" + tail)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("operator_email",), "floor@x.example\n"),
        (("materials", 0, "supplier_email"), "ink@supply.example\n"),
        (("orders", 0, "customer_email"), "c@cafe.example\n"),
        (("orders", 0, "id"), "ORD-1001\n"),
        (("orders", 0, "due"), "2026-12-01\n"),
    ],
)
def test_the_shop_schema_refuses_a_trailing_line_break(path: tuple[Any, ...], value: str) -> None:
    doc = copy.deepcopy(EXAMPLE)
    target: Any = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value.rstrip("\n")
    assert schema_problems(doc) == []
    target[path[-1]] = value
    assert schema_problems(doc) != []


def _message(**fields: str) -> OutboxMessage:
    base = {
        "proposal_hash": "a" * 64,
        "index": 0,
        "checkpoint_id": "ckpt-" + "0" * 32,
        "kind": "operator",
        "to": "floor@x.example",
        "subject": "Schedule change",
        "body": "Hello",
        "queued_at": "2026-08-12T08:00:00Z",
    }
    return OutboxMessage.model_validate({**base, **fields})


@pytest.mark.parametrize(
    ("fields", "sender"),
    [
        ({"to": "floor@x.example\n"}, "shop@x.example"),
        ({"to": "floor@x.example, other@y.example"}, "shop@x.example"),
        ({"subject": "Hi\nBcc: everyone@x.example"}, "shop@x.example"),
        ({"subject": "Hi\x1b[8m"}, "shop@x.example"),
        ({}, "shop@x.example\n"),
        ({}, "Shop <shop@x.example>\r\nBcc: x@y.example"),
    ],
)
def test_a_header_value_is_checked_once_more_where_the_message_is_built(fields: dict[str, str], sender: str) -> None:
    with pytest.raises(ValueError):
        render_email(_message(**fields), sender)


def test_a_good_message_renders_with_its_headers_in_the_header() -> None:
    data = render_email(_message(), "shop@x.example")
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"Subject: Schedule change" in head and b"Message-ID: <" in head and body.strip() == b"Hello"


def _patterns() -> list[tuple[str, int, str]]:
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.append((str(path.relative_to(PACKAGE)), node.lineno, first.value))
    return found


def test_no_compiled_pattern_ends_in_a_dollar() -> None:
    patterns = _patterns()
    assert len(patterns) > 10
    assert [p for p in patterns if p[2].endswith("$")] == []
    for _, _, text in patterns:
        re.compile(text)


def test_the_shops_name_is_the_from_display_name_and_cannot_add_a_header() -> None:
    data = render_email(_message(), "shop@x.example", 'Stitch & Co. "Süd"\r\nBcc: everyone@x.example\x1b')
    parsed = email.message_from_bytes(data, policy=email.policy.default)
    assert parsed["From"].addresses[0].addr_spec == "shop@x.example"
    assert parsed["From"].addresses[0].display_name == 'Stitch & Co. "Süd" Bcc: everyone@x.example'
    assert parsed["Bcc"] is None
