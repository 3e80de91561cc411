"""Message drafts that belong to a plan: to the customer, the machine operator and each supplier.

They are part of what the human approves (and of the proposal hash). A recipient without an address gets
no draft: a plain-text request without a sender has no customer to write to. Each is a message a person can
send as it is: the customer reads the product's description (not its code) and the day it will be finished;
the supplier gets a purchase request with a reference number, the quantity and the day it is needed; every
message is signed with the shop's name. The customer's message is written in the language they wrote in
(:mod:`.wording`); the operator's and the supplier's in the shop's (English).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..shop.model import Order, ShopState, runs
from .proposal import AtRisk, CommunicationDraft, ProcurementAction, ScheduleChange
from .wording import wording

# The prefix of the order ids intake makes for requests that name none (domain/intake/facts.py): the shop's.
GENERATED_ID_PREFIX = "REQ-"


def _product(state: ShopState, order: Order) -> str:
    """What a person calls the order's product: its description, else its code."""
    product = state.product(order.product)
    return product.description if product is not None else order.product


def _signed(state: ShopState, *paragraphs: str) -> str:
    return "\n\n".join((*paragraphs, f"Kind regards,\n{state.name}"))


def purchase_reference(target: Order, supplier_number: int) -> str:
    """The reference a supplier quotes back: ``PR-<order>-<n>``, one per supplier of the plan (1-based)."""
    return f"PR-{target.id}-{supplier_number}"


def _customer(
    state: ShopState, target: Order, finish: str, buying: bool, late: bool, partly: bool = False
) -> CommunicationDraft:
    """The customer's message, in the language they wrote in (:mod:`.wording`)."""
    language, words = wording(target.language)
    # A product's description is the shop's (its language); a person still reads it better than a code.
    what = words.what.format(quantity=words.quantity(target.quantity), product=_product(state, target))
    days = {"finish": words.day(finish), "due": words.day(target.due)}
    when = (words.partly if partly else words.late if late else words.on_time).format(**days)
    subject = words.subject_partly if partly else words.subject_late if late else words.subject_on_time
    note = f" {words.buying}" if buying else ""
    # The customer is told their own reference (their PO number, or the order id they gave), never an id the
    # shop made up for them: without one, the subject names what they ordered and the thanks no number at all.
    theirs = target.reference or ("" if target.id.startswith(GENERATED_ID_PREFIX) else target.id)
    thanks = words.thanks if theirs else words.thanks.replace(" {order}", "")
    return CommunicationDraft(
        audience="customer",
        to=target.customer_email,
        subject=re.sub(r" {2,}", " ", subject.format(order=theirs or what, finish=days["finish"])),
        body="\n\n".join(
            (
                words.greeting.format(customer=target.customer),
                thanks.format(order=theirs, what=what) + f" {when}{note}",
                words.reply,
                f"{words.sign_off}\n{state.name}",
            )
        ),
        language=language,
    )


def _supplier(
    state: ShopState, target: Order, supplier: str, number: int, mine: Sequence[ProcurementAction]
) -> CommunicationDraft:
    reference = purchase_reference(target, number)
    lines = [f"- {p.quantity} units of {p.material_id}, needed by {p.needed_by}" for p in mine]
    return CommunicationDraft(
        audience="supplier",
        to=supplier,
        subject=f"Purchase request {reference} from {' '.join(state.name.split())}: "
        + ", ".join(f"{p.quantity} {p.material_id}" for p in mine),
        body=_signed(
            state,
            "Hello,",
            f"{state.name} would like to order:\n" + "\n".join(lines),
            f"Our reference: {reference}. Please confirm the quantities and the delivery day, quoting this reference.",
        ),
    )


def draft_messages(
    state: ShopState,
    target: Order,
    changes: Sequence[ScheduleChange],
    procurement: Sequence[ProcurementAction],
    at_risk: Sequence[AtRisk],
) -> tuple[CommunicationDraft, ...]:
    """Drafts for the customer, the operator and each supplier (in that order). Never sent by the planner."""
    new = next(c.after for c in changes if c.order_id == target.id)
    finish = new[-1].day
    drafts = []
    if target.customer_email:
        risk = next((r for r in at_risk if r.order_id == target.id), None)
        partly = bool(risk and risk.unplaced_minutes)
        drafts.append(_customer(state, target, finish, bool(procurement), risk is not None, partly))
    if state.operator_email:
        lines = [f"Run {target.id} ({target.quantity} x {_product(state, target)}, {target.product}): {runs(new)}."]
        lines += [
            f"Move {c.order_id}: from {runs(c.before)} to {runs(c.after)}." for c in changes if c.order_id != target.id
        ]
        lines += [
            f"At risk: {r.order_id} (due {r.due}, {'partly planned, up to' if r.unplaced_minutes else 'finishes'} "
            f"{r.finish}): {r.detail}."
            for r in at_risk
        ]
        drafts.append(
            CommunicationDraft(
                audience="operator",
                to=state.operator_email,
                subject=f"Schedule change for {target.id} on {', '.join(sorted({a.machine for a in new}))}",
                body=_signed(state, "Hello,", "\n".join(lines)),
            )
        )
    for number, supplier in enumerate(sorted({p.supplier_email for p in procurement}), start=1):
        drafts.append(
            _supplier(state, target, supplier, number, [p for p in procurement if p.supplier_email == supplier])
        )
    return tuple(drafts)
