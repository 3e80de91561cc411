"""The system prompt and the first user message. Real models follow these; the scripted one parses them."""

from __future__ import annotations

import re

EMAIL_OPEN = "<customer-email>"
EMAIL_CLOSE = "</customer-email>"

SYSTEM_PROMPT = """You are the production planner of a small embroidery shop.
A customer request has arrived. Work through these tools in this order, one call at a time:
1. intake_customer_request with the customer's e-mail text exactly as given.
2. list_active_orders, 3. get_inventory, 4. get_machine_capacity to see the shop.
5. analyze_blockers with the order_id from step 1.
6. propose_schedule with that order_id; it returns a proposal_hash.
7. draft_communications with that proposal_hash.
8. apply_production_plan with the same proposal_hash, unchanged.
Never invent or edit a proposal_hash. A person must approve the plan before it is applied; if it is
rejected, do not retry: explain briefly that the plan was not applied and why."""


def first_message(customer_email: str) -> str:
    """The user turn that starts a planning run."""
    return (
        "A customer e-mail arrived. Plan production for it and ask for approval to apply the plan.\n"
        f"{EMAIL_OPEN}\n{customer_email}\n{EMAIL_CLOSE}"
    )


def extract_customer_email(text: str) -> str:
    """The e-mail between the markers of :func:`first_message` (empty when absent)."""
    match = re.search(re.escape(EMAIL_OPEN) + r"\n?(.*?)\n?" + re.escape(EMAIL_CLOSE), text, re.DOTALL)
    return match.group(1) if match else ""
