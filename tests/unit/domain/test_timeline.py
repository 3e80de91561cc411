"""The before/after timeline and the summary card: what the approver sees first, drawn and in words."""

from __future__ import annotations

import re
from typing import Any

from production_orchestrator.approval_web.timeline import render_grid, render_timeline
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.planning.timeline import build_timeline, describe_timeline
from production_orchestrator.domain.presentation import describe_moves, others_at_risk, shop_stamp, shop_time, timing
from production_orchestrator.domain.scenarios import SCENARIOS, TODAY
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import ShopState


def shop(closed: tuple[str, ...] = ()) -> ShopState:
    doc: dict[str, Any] = {
        "name": "Print Co",
        "timezone": "Europe/Berlin",
        "operator_email": "floor@print.example",
        "machines": [
            {"id": "PRESS-A", "minutes_per_day": 480, "closed_days": list(closed)},
            {"id": "PRESS-B", "minutes_per_day": 480},
        ],
        "materials": [{"id": "INK", "on_hand": 5000, "supplier_email": "ink@supply.example", "lead_time_days": 0}],
        "products": [
            {"code": "TOTE", "description": "tote", "machines": ["PRESS-A"], "minutes_per_unit": 2,
             "materials": [{"id": "INK", "per_unit": 1}]},
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
    return read_shop(doc)


def test_rush_order_before_and_after_name_the_new_order_the_move_and_where_it_came_from() -> None:
    base = SCENARIOS["rush-order"].taken_in()
    proposal = build_proposal(base, "RUSH-200", TODAY, solver_nodes=0)  # the greedy plan: one whole move to draw
    timeline = build_timeline(base, proposal)
    assert timeline.machines == ("EMB-01",)
    assert timeline.days == ("2026-08-12", "2026-08-13")
    before, after = timeline.before[0], timeline.after[0]
    assert [(b.order_id, b.kind) for b in before[0].blocks] == [("STANDARD-100", "moving")]
    assert before[1].blocks == ()
    assert [(b.order_id, b.kind, b.other) for b in after[0].blocks] == [
        ("RUSH-200", "new", ""),
        ("STANDARD-100", "left", "EMB-01 Thu 13 Aug"),
    ]
    assert [(b.order_id, b.kind, b.other) for b in after[1].blocks] == [("STANDARD-100", "moved", "EMB-01 Wed 12 Aug")]
    assert after[0].booked == 240  # the slot STANDARD-100 left books nothing
    words = describe_timeline(timeline)
    assert words == [
        "EMB-01, Wed 12 Aug: before, STANDARD-100 6h (moves away in this plan) (6h of 8h booked); after, "
        "RUSH-200 4h (the new order); STANDARD-100 6h (moved away to EMB-01 Thu 13 Aug; free now) (4h of 8h booked).",
        "EMB-01, Thu 13 Aug: before, free (8h open); after, STANDARD-100 6h (moved here from EMB-01 Wed 12 Aug) "
        "(6h of 8h booked).",
    ]


def test_closed_days_are_shaded_at_risk_work_is_marked_and_untouched_machines_are_counted() -> None:
    base = shop(closed=("2026-12-23",))
    proposal = build_proposal(base, "NEW", "2026-12-21")
    timeline = build_timeline(base, proposal)
    assert timeline.other_machines == 1  # PRESS-B: the plan does not touch it
    closed = [c.day for c in timeline.after[0] if c.closed]
    assert closed == ["2026-12-23"]
    risky = {b.order_id for row in timeline.after for c in row for b in c.blocks if b.at_risk}
    assert risky == {r.order_id for r in proposal.at_risk} and risky
    svg = render_grid(timeline, "after")
    assert "closed" in svg and "#d5d5d1" in svg  # the closed day's shading
    assert "\u26a0" in svg  # the at-risk mark
    section = render_timeline(timeline)
    assert 'class="sr"' in section and "closed" in section.split('class="sr"')[1]
    assert "<script" not in section and "style=" not in section  # no script; colours are SVG attributes


def test_the_summary_says_late_by_how_much_and_what_moves() -> None:
    base = shop()
    proposal = build_proposal(base, "NEW", "2026-12-21")
    on_time, sentence = timing(proposal)
    assert not on_time
    assert re.match(r"At risk: finishes \w{3} \d+ Dec, ", sentence), sentence
    assert describe_moves(proposal) and all("\u2192" in line for line in describe_moves(proposal))
    rush = build_proposal(SCENARIOS["rush-order"].taken_in(), "RUSH-200", TODAY, solver_nodes=0)
    assert timing(rush) == (True, "On time: finishes Wed 12 Aug, on its due day")
    assert others_at_risk(rush) == []
    assert describe_moves(rush) == ["STANDARD-100: EMB-01 Wed 12 Aug \u2192 EMB-01 Thu 13 Aug"]


def test_times_for_people_carry_the_shops_offset() -> None:
    assert shop_time("2026-08-19T08:00:00Z", "Europe/Berlin") == "Wed 19 Aug 2026, 10:00 CEST (+02:00)"
    assert shop_time("2026-12-19T08:00:00Z", "Europe/Berlin") == "Sat 19 Dec 2026, 09:00 CET (+01:00)"
    assert shop_time("2026-08-19T08:00:00Z", "UTC") == "Wed 19 Aug 2026, 08:00 UTC"
    # one token for status and history lines: the same instant, in the shop's zone with its offset
    assert shop_stamp("2026-08-19T08:00:00Z", "Europe/Berlin") == "2026-08-19T10:00:00+02:00"
    assert shop_stamp("2026-08-19T08:00:00Z", "Nowhere/Else") == "2026-08-19T08:00:00+00:00"
