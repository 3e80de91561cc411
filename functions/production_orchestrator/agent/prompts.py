"""The prompts: reading a customer's e-mail (one structured-output call) and the planning run.

Real models follow them; the scripted model (and the loopback servers' scripts) parse them back, so the
markers below are part of the contract between the two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..domain.shop.model import Product

EMAIL_OPEN = "<customer-email>"
EMAIL_CLOSE = "</customer-email>"

PRODUCTS_OPEN = "<products>"
PRODUCTS_CLOSE = "</products>"

EXTRACTION_PROMPT = """You read customer e-mails for a small manufacturing shop and record what the customer
orders by calling the RequestFacts tool once. Copy values from the e-mail; never guess or compute:
- product: the product code from the shop's list, or the customer's own words for the product;
- quantity: the number of units ordered;
- due: the date or phrase saying when it is needed, exactly as written ("by Friday", "2026-12-04").
Use null for anything the e-mail does not state. If the e-mail gives one of them in conflicting ways (two
different quantities, two due dates), leave it null and name it in "unclear"."""

SYSTEM_PROMPT = """You are the production planner of a small manufacturing shop. A customer e-mail has arrived.
Your job is to run the shop's planning tools in order and ask a person to approve the resulting plan.
The tools compute the plan; you never calculate, invent or edit plan details yourself.

Call exactly one tool per turn, in this order:
1. intake_customer_request: pass the text between <customer-email> and </customer-email>, verbatim.
2. list_active_orders, then 3. get_inventory, then 4. get_machine_capacity: look at the shop.
5. analyze_blockers with the order_id that step 1 returned.
6. propose_schedule with that same order_id. It returns a proposal_hash (64 hex characters).
7. draft_communications with that proposal_hash.
8. apply_production_plan with that proposal_hash, copied character for character.

Rules:
- Copy order_id and proposal_hash values exactly from tool results; never shorten, guess or retype them.
- Step 8 pauses for a person's approval. Do not say the plan is applied until the tool result says so.
- A result starting with "refused:" names the rule you broke: correct that call as it says, or stop.
  Never look for another way to reach the same effect.
- A result starting with "rejected" is a person's final decision: reply in one or two sentences that the
  plan was not applied and why, and call no more tools.
- If a tool fails for another reason, stop and report the error in one sentence.
- Once apply_production_plan succeeds, reply in one or two sentences with the new revision."""


GUIDANCE_OPEN = "<approver-guidance>"
GUIDANCE_CLOSE = "</approver-guidance>"


def first_message(customer_email: str, guidance: Sequence[str] = ()) -> str:
    """The user turn that starts a planning run; a revision adds the approver's guidance (the planning tool
    honours what it can check: kept orders, overtime, given facts; a note is for the model to read)."""
    text = (
        "A customer e-mail arrived. Plan production for it and ask for approval to apply the plan.\n"
        f"{EMAIL_OPEN}\n{customer_email}\n{EMAIL_CLOSE}"
    )
    if guidance:
        lines = "\n".join(f"- {line}" for line in guidance)
        text += (
            "\nAn approver asked for a revised plan. The planning tool already honours the kept orders, the "
            "overtime and the given facts; run the same steps.\n"
            f"{GUIDANCE_OPEN}\n{lines}\n{GUIDANCE_CLOSE}"
        )
    return text


def extraction_message(customer_email: str, products: Sequence[Product], anchor: str) -> str:
    """The one user turn of the reading call: the shop's products, the day dates count from, the e-mail."""
    catalog = json.dumps(
        [
            {"code": p.code, "description": p.description, **({"aliases": list(p.aliases)} if p.aliases else {})}
            for p in products
        ],
        sort_keys=True,
    )
    return (
        f"Record what this customer orders. Dates count from {anchor}. The shop's products:\n"
        f"{PRODUCTS_OPEN}{catalog}{PRODUCTS_CLOSE}\n{EMAIL_OPEN}\n{customer_email}\n{EMAIL_CLOSE}"
    )


def read_extraction_message(text: str) -> tuple[list[dict[str, Any]], str] | None:
    """The products and anchor day of an :func:`extraction_message` (None when ``text`` is not one)."""
    match = re.search(re.escape(PRODUCTS_OPEN) + r"(.*?)" + re.escape(PRODUCTS_CLOSE), text, re.DOTALL)
    anchor = re.search(r"Dates count from (\d{4}-\d{2}-\d{2})\.", text)
    if match is None or anchor is None:
        return None
    found = json.loads(match.group(1))
    return (found, anchor.group(1)) if isinstance(found, list) else None


def extract_customer_email(text: str) -> str:
    """The e-mail between the markers of :func:`first_message` (empty when absent)."""
    match = re.search(re.escape(EMAIL_OPEN) + r"\n?(.*?)\n?" + re.escape(EMAIL_CLOSE), text, re.DOTALL)
    return match.group(1) if match else ""
