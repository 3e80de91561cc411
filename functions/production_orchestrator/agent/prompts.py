"""The system prompt and the first user message. Real models follow these; the scripted one parses them."""

from __future__ import annotations

import re

EMAIL_OPEN = "<customer-email>"
EMAIL_CLOSE = "</customer-email>"

SYSTEM_PROMPT = """You are the production planner of a small embroidery shop. A customer e-mail has arrived.
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
