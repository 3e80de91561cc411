"""The page, the e-mail and ``show`` show what the plan does: allocations per machine and day, moves of
other orders, procurement, and the orders at risk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from production_orchestrator.approval_web.pages import render_confirmation
from production_orchestrator.domain.approval.approvals import ApprovalRecord, ApproverLink, hash_link_secret
from production_orchestrator.domain.approval.policy import ApprovalPolicy
from production_orchestrator.domain.planning.proposal import GivenFacts, ProposalContent
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.presentation import render_review
from production_orchestrator.domain.records import INTERRUPT_NAME, Checkpoint, ProviderBinding, agent_identity, utc_iso
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.services.deciding.review import LinkView

NOW = datetime(2026, 12, 21, 8, 0, tzinfo=UTC)
BINDING = ProviderBinding(provider="deterministic", model_id="scripted-planner-v1")


def checkpoint_for(proposal: ProposalContent) -> Checkpoint:
    return Checkpoint(
        checkpoint_id="ckpt-" + "c" * 32,
        interrupt_id="v1:before_tool_call:x:y",
        interrupt_name=INTERRUPT_NAME,
        session_id="sess-" + "d" * 32,
        agent_id=agent_identity(BINDING, "request"),
        proposal_hash=proposal.proposal_hash(),
        domain_digest="e" * 64,
        provider_binding=BINDING,
        scenario="request",
        target_order_id=proposal.target_order.id,
        start_pid=1,
        created_at=utc_iso(NOW),
        expires_at=utc_iso(NOW + timedelta(days=1)),
    ).sealed()


def page(proposal: ProposalContent) -> str:
    checkpoint = checkpoint_for(proposal)
    approval = ApprovalRecord(
        approval_id="appr-" + "f" * 32,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        created_at=utc_iso(NOW),
        expires_at=checkpoint.expires_at,
        task_token="token",
        policy=ApprovalPolicy(approvers=("ana@example.com",)),
        links=(ApproverLink(approver="ana@example.com", secret_hash=hash_link_secret("s" * 40)),),
    )
    view = LinkView(approval=approval, approver="ana@example.com", checkpoint=checkpoint, proposal=proposal)
    return render_confirmation(view, now=NOW)


def at_risk_plan() -> ProposalContent:
    doc: dict[str, Any] = {
        "name": "Print Co",
        "timezone": "UTC",
        "operator_email": "floor@print.example",
        "machines": [{"id": "PRESS-A", "minutes_per_day": 480}],
        "materials": [{"id": "INK", "on_hand": 0, "supplier_email": "ink@supply.example", "lead_time_days": 0}],
        "products": [
            {
                "code": "TOTE",
                "description": "tote",
                "machines": ["PRESS-A"],
                "minutes_per_unit": 2,
                "materials": [{"id": "INK", "per_unit": 1}],
            }
        ],
        "orders": [
            {"id": "HIGH", "customer": "H", "product": "TOTE", "quantity": 240, "due": "2026-12-31", "priority": 99,
             "schedule": [{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 480}]},
            {"id": "LOW", "customer": "L", "product": "TOTE", "quantity": 120, "due": "2026-12-31", "priority": 5,
             "schedule": [{"machine": "PRESS-A", "day": "2026-12-22", "minutes": 240}]},
            {"id": "NEW", "customer": "N", "customer_email": "n@n.example", "product": "TOTE", "quantity": 300,
             "due": "2026-12-22", "priority": 60},
        ],
    }  # fmt: skip
    return build_proposal(read_shop(doc), "NEW", "2026-12-21", "From: n@n.example\n\n240 totes by tomorrow")


def test_review_and_page_show_moves_allocations_procurement_and_at_risk() -> None:
    proposal = at_risk_plan()
    assert [r.order_id for r in proposal.at_risk] == ["NEW"]
    text = render_review(checkpoint_for(proposal), proposal)
    html = page(proposal)
    for expected in (
        "Move LOW from PRESS-A on 2026-12-22 (4h) to PRESS-A on 2026-12-23 (4h).",
        "PRESS-A on 2026-12-22: LOW 4h moved out, NEW 8h new.",
        "Order 300 units of INK from ink@supply.example, needed by 2026-12-22.",  # NEW's own, not HIGH's or LOW's
        "NEW (due 2026-12-22) finishes 2026-12-23",
        "held by HIGH",
    ):
        assert expected in text, (expected, text)
        assert expected.replace("(", "(") in html.replace("&#x27;", "'"), expected
    assert "At risk: these orders miss their due date" in html
    assert "240 totes by tomorrow" in html  # the customer's own words, for the approver to compare


def test_a_plan_without_risk_says_so() -> None:
    proposal = build_proposal(SCENARIOS["team-jerseys"].taken_in(), "JERSEY-310", TODAY)
    assert "nothing: every order keeps its due date" in render_review(checkpoint_for(proposal), proposal)
    assert "Nothing: every order keeps its due date." in page(proposal)


def test_facts_a_person_gave_are_marked_on_the_page_with_what_the_email_said() -> None:
    given = GivenFacts(given_by="dana <ops>", quantity=300, due="2026-12-22", email_said={"quantity": "240 <b>"})
    base = at_risk_plan()
    proposal = base.model_copy(update={"given": given})
    html = page(proposal)
    card = html.split('aria-label="Summary"', 1)[1].split("</section>", 1)[0]
    said = "Quantity 300: given by dana &lt;ops&gt;, not from the e-mail (the e-mail said 240 &lt;b&gt;)"
    assert f'<p class="given">{said}</p>' in card  # on the first screen, escaped
    assert '<p class="given">Due 2026-12-22: given by dana &lt;ops&gt;, not from the e-mail</p>' in card
    details = html.split("<h2>Facts a person gave, not the e-mail</h2>", 1)[1].split("</section>", 1)[0]
    assert f"<li>{said}</li>" in details and "Due 2026-12-22: given by" in details
    assert "240 <b>" not in html and "dana <ops>" not in html  # nothing they wrote is markup
    text = render_review(checkpoint_for(proposal), proposal)
    assert "  Quantity 300: given by dana <ops>, not from the e-mail (the e-mail said 240 <b>)\n" in text
    # A plan whose facts all came from the e-mail says nothing about given facts.
    assert "given by" not in page(base) and "given by" not in render_review(checkpoint_for(base), base)
    assert "Facts a person gave" not in page(base)
