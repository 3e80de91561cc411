"""The operator's page of held requests (``serve`` on loopback only): a form completes a *needs facts* one.

    GET/HEAD /requests?k=KEY   the operator key -> every open held request (what it says, why it waits), and for
                               each needs-facts one a form (product, quantity, due, customer); reads only
                               any other key, or none -> the neutral page (404)
    POST     /requests?k=KEY   a form from this server (Origin / Sec-Fetch-Site, when sent, name it) -> the same
                               path as `request complete HELD_ID --product --quantity --due` (the completer: a
                               fresh CLI process), then the page again saying what it did; a refusal comes back
                               with the form and why, nothing written

Who may use it: whoever started ``serve``. The key is minted when ``serve`` starts, printed once on its terminal
(``OPERATOR_URL=``), kept only as its hash in the server's memory and compared in constant time; a restart makes a
new one. Approvers' links never open this page, and on a LAN address (``--bind`` with TLS) it is not served at
all. As on the approval pages the key travels in the query string of the page's own URL (the form posts back to
it), never in a page body, a log line or a Referer header; the same headers apply (no-store, no-referrer, no
framing, no scripts, form-action 'self').
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape

from ..domain.errors import OrchestratorError
from ..domain.intake.held import PossibleDuplicate
from ..services.runs.held import held_request, held_requests
from ..services.runtime import Runtime
from .endpoint import PageResponse
from .layout import note, page
from .pages import render_neutral
from .paths import HELD_PATH

__all__ = ["HELD_PATH", "CompleteHeld", "HeldPage", "key_digest"]

FIELDS = ("product", "quantity", "due", "customer")
_FORM = {
    "held_id": re.compile(r"^held-[0-9a-f]{16}\Z"),
    "product": re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z"),
    "quantity": re.compile(r"^[1-9][0-9]{0,6}\Z"),
    "due": re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z"),
    "customer": re.compile(r"^[^\x00-\x1f\x7f]{0,120}\Z"),
}


@dataclass(frozen=True)
class CompleteHeld:
    """The facts a person gave a held request on the page (``customer`` may be empty)."""

    held_id: str
    product: str
    quantity: str
    due: str
    customer: str = ""


# Runs `request complete` for the facts; returns the new run's checkpoint id, or raises the refusal (nothing written).
Completer = Callable[[CompleteHeld], str]


def key_digest(key: str) -> str:
    """What the server keeps of its operator key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class HeldPage:
    """The page's composition: the stores, the key's digest and the completer."""

    rt: Runtime
    digest: str
    completer: Completer

    def _allowed(self, query: Mapping[str, str]) -> bool:
        given = key_digest(query.get("k", ""))
        return bool(query.get("k")) and hmac.compare_digest(given, self.digest)

    def show(self, query: Mapping[str, str]) -> PageResponse:
        """The held requests for the operator key, else the neutral page. Writes nothing."""
        if not self._allowed(query):
            return PageResponse(404, render_neutral(), "not_usable")
        return PageResponse(200, self._render(), "held_shown")

    def post(self, query: Mapping[str, str], form: Mapping[str, str], *, same_site: bool) -> PageResponse:
        """Complete one held request with the form's facts: the operator key, and a form from this server
        (``same_site``: the browser's Origin and Sec-Fetch-Site, when sent, say so)."""
        if not self._allowed(query):
            return PageResponse(404, render_neutral(), "not_usable")
        if not same_site:
            return PageResponse(403, self._render(problem="this form only works from its own page"), "cross_site")
        facts = {name: str(form.get(name, "")).strip() for name in ("held_id", *FIELDS)}
        bad = [name for name, pattern in _FORM.items() if not pattern.fullmatch(facts[name])]
        if bad:
            problem = f"check {', '.join(bad)}: product code, a whole quantity, due as YYYY-MM-DD"
            return PageResponse(400, self._render(problem=problem, typed=facts), "invalid")
        try:
            held = held_request(self.rt, facts["held_id"])
            if not held.is_open or held.kind != "needs_facts":
                raise OrchestratorError(f"held request {held.held_id} is not waiting for facts ({held.status})")
            checkpoint = self.completer(CompleteHeld(**facts))
        except OrchestratorError as exc:
            return PageResponse(409, self._render(problem=str(exc)[:400], typed=facts), "not_completed")
        done = f"Planned: {facts['held_id']} is now run {checkpoint}; its approvers have their links."
        return PageResponse(200, self._render(notice=done), "completed")

    def _render(self, *, problem: str = "", notice: str = "", typed: Mapping[str, str] | None = None) -> str:
        held = held_requests(self.rt)
        shop = self.rt.store.load_state()
        products = [p.code for p in shop.products] if shop is not None else []
        body = note(problem) + note(notice, "ok")
        if not held:
            body += "<p>No request is waiting for a person.</p>"
        body += "".join(
            _card(h, products, typed if typed and typed.get("held_id") == h.held_id else None) for h in held
        )
        return page("Held requests", body)


def _card(held: PossibleDuplicate, products: list[str], typed: Mapping[str, str] | None) -> str:
    head = (
        f"<section><h2>{escape(held.about or held.held_id)}</h2><dl>"
        f"<dt>From</dt><dd>{escape(held.sender or '(unknown sender)')}</dd>"
        f"<dt>Why it waits</dt><dd>{escape(held.why)}</dd>"
        f"<dt>Id</dt><dd><code>{escape(held.held_id)}</code></dd></dl>"
        f"<details><summary>The e-mail</summary><pre>{escape(held.text[:4000])}</pre></details>"
    )
    if held.kind != "needs_facts":
        return (
            head
            + "<p>Start it anyway with <code>start --again</code>, or drop it with <code>request drop</code>.</p>"
            + "</section>"
        )
    values = {**held.read, **(typed or {})}
    chosen = values.get("product", "")
    options = "".join(
        f'<option value="{escape(code)}"{" selected" if code == chosen else ""}>{escape(code)}</option>'
        for code in products
    )
    return (
        f'{head}<form method="post" action="">'
        f'<input type="hidden" name="held_id" value="{escape(held.held_id)}">'
        f'<label for="p-{held.held_id}">Product</label><select id="p-{held.held_id}" name="product">'
        f'<option value="">choose</option>{options}</select>'
        f"{_input(held, 'quantity', 'Quantity', values, 'number')}{_input(held, 'due', 'Due', values, 'date')}"
        f"{_input(held, 'customer', 'Customer (optional)', values)}"
        '<button class="approve" type="submit">Plan it with these facts</button></form></section>'
    )


def _input(held: PossibleDuplicate, name: str, label: str, values: Mapping[str, str], kind: str = "text") -> str:
    field_id = f"{name[0]}-{held.held_id}"
    return (
        f'<label for="{field_id}">{escape(label)}</label>'
        f'<input id="{field_id}" name="{name}" type="{kind}" value="{escape(values.get(name, ""))}">'
    )
