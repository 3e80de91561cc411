"""The whole shop's schedule page: every machine-day drawn with its bookings, closed days shaded, what is due
under each day, each pending plan laid over the booked work and linked to its entry, and every shop or
customer string escaped (markup and terminal escapes alike)."""

from __future__ import annotations

import re
from typing import Any

from production_orchestrator.approval_web.grid import day_width
from production_orchestrator.approval_web.layout import SECURITY_HEADERS
from production_orchestrator.approval_web.schedule_page import render_schedule
from production_orchestrator.domain.planning.propose import build_proposal
from production_orchestrator.domain.planning.shop_schedule import (
    PendingPlan,
    ShopSchedule,
    build_schedule,
    describe_shop_schedule,
)
from production_orchestrator.domain.shop.file_format import read_shop
from production_orchestrator.domain.shop.model import ShopState

HOSTILE = '<script>alert(1)</script> "Evil" \x1b[31mRed\x1b[0m'


def shop(customer: str = "H") -> ShopState:
    doc: dict[str, Any] = {
        "name": "Print & Co",
        "timezone": "Europe/Berlin",
        "operator_email": "floor@print.example",
        "machines": [
            {"id": "PRESS-A", "minutes_per_day": 480, "closed_days": ["2026-12-23"]},
            {"id": "PRESS-B", "minutes_per_day": 480},
        ],
        "materials": [{"id": "INK", "on_hand": 5000, "supplier_email": "ink@supply.example", "lead_time_days": 0}],
        "products": [
            {"code": "TOTE", "description": "tote", "machines": ["PRESS-A"], "minutes_per_unit": 2,
             "materials": [{"id": "INK", "per_unit": 1}]},
        ],
        "orders": [
            {"id": "HIGH", "customer": customer, "product": "TOTE", "quantity": 240, "due": "2026-12-31",
             "priority": 99, "schedule": [{"machine": "PRESS-A", "day": "2026-12-21", "minutes": 480}]},
            {"id": "LOW", "customer": "L", "product": "TOTE", "quantity": 120, "due": "2026-12-31", "priority": 5,
             "schedule": [{"machine": "PRESS-A", "day": "2026-12-22", "minutes": 240}]},
            {"id": "NEW", "customer": customer, "customer_email": "n@n.example", "product": "TOTE", "quantity": 300,
             "due": "2026-12-22", "priority": 60},
        ],
    }  # fmt: skip
    return read_shop(doc)


def with_plan(customer: str = "H") -> tuple[ShopState, ShopSchedule]:
    """The shop without NEW (it waits beside the shop, as a request does), and NEW's plan pending over it."""
    full = shop(customer)
    proposal = build_proposal(full, "NEW", "2026-12-21")
    booked = full.model_copy(update={"orders": tuple(o for o in full.orders if o.id != "NEW")})
    plan = PendingPlan(1, proposal, "ckpt-" + "a" * 32, "f" * 64, "pending")
    return booked, build_schedule(booked, "2026-12-21", (plan,))


def test_every_machine_day_is_a_cell_with_its_bookings_and_closed_days_are_closed() -> None:
    booked, schedule = with_plan()
    assert schedule.machines == ("PRESS-A", "PRESS-B")
    assert schedule.days[0] == "2026-12-21" and len(schedule.days) >= 7 and "2026-12-31" in schedule.days
    cells = {(c.machine, c.day): c for row in schedule.rows for c in row}
    assert len(cells) == len(schedule.machines) * len(schedule.days)
    for order in booked.orders:  # each booking in its own machine-day, as booked (or marked moving)
        for a in order.schedule:
            found = [b for b in cells[(a.machine, a.day)].blocks if b.order_id == order.id and not b.pending]
            assert [b.minutes for b in found] == [a.minutes]
    assert [day for (machine, day), c in cells.items() if c.closed] == ["2026-12-23"]
    assert all(c.machine == "PRESS-A" for c in cells.values() if c.closed)
    svg = render_schedule(schedule, served=False)
    assert svg.count(">closed</text>") == 1 and "#d5d5d1" in svg
    words = describe_shop_schedule(schedule)
    assert "PRESS-A, Wed 23 Dec: closed." in words
    assert any(line.startswith("PRESS-B: free on Mon 21 Dec") for line in words)


def test_the_pending_plan_is_laid_over_the_booked_work_and_links_to_its_entry() -> None:
    _, schedule = with_plan()
    plan = schedule.plans[0]
    pending = [(c.machine, c.day, b) for row in schedule.rows for c in row for b in c.blocks if b.pending]
    placed = {(a.machine, a.day, a.minutes) for c in plan.proposal.schedule_changes for a in c.after}
    assert {(m, d, b.minutes) for m, d, b in pending} == placed and placed
    assert all(b.plan == 1 for _, _, b in pending)
    assert any(b.order_id == "NEW" and b.kind == "new" for _, _, b in pending)
    moved = {c.order_id for c in plan.proposal.schedule_changes} - {"NEW"}
    moving = [b for row in schedule.rows for c in row for b in c.blocks if b.kind == "moving"]
    assert {b.order_id for b in moving} == moved and all(b.plan == 1 for b in moving)
    for row in schedule.rows:  # a pending plan books nothing: booked minutes count the shop's work only
        for cell in row:
            assert cell.booked == sum(b.minutes for b in cell.blocks if not b.pending)
    assert schedule.due_on("2026-12-22") == ("NEW (plan 1)",)
    page = render_schedule(schedule, served=True)
    drawn_links = re.findall(r'<a href="#plan-1" tabindex="-1">', page)
    assert len(drawn_links) == len(pending) + len(moving)  # each block the plan adds or moves away
    assert 'id="plan-1"' in page and "due NEW (plan 1)" in page
    assert f'href="/#p-{"f" * 16}"' in page  # serve's list of pending approvals, by fingerprint
    assert "show --checkpoint ckpt-" + "a" * 32 in page
    assert 'href="/' not in render_schedule(schedule, served=False)  # a file has no server to point at
    assert "<script" not in page and "approve?" not in page


def test_shop_and_customer_strings_are_escaped_markup_and_terminal_escapes_alike() -> None:
    _, schedule = with_plan(customer=HOSTILE)
    page = render_schedule(schedule, served=True)
    assert "<script" not in page and "\x1b" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "\\x1b[31mRed" in page
    assert "Print &amp; Co" in page


def test_the_drawing_scrolls_in_its_box_and_the_page_keeps_its_stylesheet() -> None:
    _, schedule = with_plan()
    page = render_schedule(schedule, served=True)
    svg = re.search(r'<div class="tl"><svg[^>]* width="(\d+)"', page)
    assert svg is not None and int(svg.group(1)) == 58 + day_width(len(schedule.days)) * len(schedule.days)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None
    import base64
    import hashlib

    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in SECURITY_HEADERS["Content-Security-Policy"]  # the one allowed stylesheet
    assert ' style="' not in page  # no inline style attribute (the policy would block it)
