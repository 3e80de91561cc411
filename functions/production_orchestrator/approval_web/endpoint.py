"""The approval link's HTTP behaviour, shared by the decision Lambda and the local server. No strands.

    GET/HEAD ?a=&s=  valid link, open approval   -> the confirmation page (plan, what changed if stale)
                     valid link, anything else   -> what happened (who, when, which plan, how it ended)
                     not a valid link            -> the neutral page; reads only
    POST ?a=&s= form decision=approve|reject     -> decide (services/deciding/decide.py: the one policy), then the
                                                    page of what it did, or the form again with why not
                     decision=repropose (stale)  -> plan again on the current shop, same links
                     decision=revise + guidance  -> the next version, planned with the holder's guidance

The link secret arrives in the query string (the forms post back to their own URL); a form field ``s``
is accepted too. Neither is ever logged or rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..domain.approval.authority import superseded_refusal, was_revised
from ..domain.errors import OrchestratorError, RefusalCode
from ..domain.messages.outbox import describe_outbox
from ..services.deciding.decide import Decide, DecideResult, decide
from ..services.deciding.review import Link, LinkView, open_link
from ..services.runtime import Runtime
from . import pages as page

Reproposer = Callable[[LinkView], str]  # runs the agent again; returns the new proposal hash
# Runs the agent again with the holder's guidance (the "Change the plan" form's fields); returns the new
# version's (proposal hash, version), or raises the refusal (OrchestratorError) with nothing written.
Reviser = Callable[[LinkView, Mapping[str, str]], tuple[str, int]]
GUIDANCE_FIELDS = ("keep", "overtime", "quantity", "due", "product", "note")

# Refusals after which the holder may still decide: the form comes back, with why and what they typed.
_FORM_AGAIN = {
    RefusalCode.UNAUTHORIZED_APPROVER: (403, "unauthorized"),
    RefusalCode.REVIEWED_HASH_MISMATCH: (409, "hash_mismatch"),
    RefusalCode.STALE_DOMAIN_STATE: (409, "stale"),
}


@dataclass(frozen=True)
class PageResponse:
    """Status, HTML and a short outcome label for logs (never a secret)."""

    status: int
    body: str
    label: str


@dataclass
class DecisionEndpoint:
    """One composition of the stores and the wake-up for the approval pages."""

    # The stores, the wake-up (``callback``), the receipt key and the clock.
    rt: Runtime
    allowed_approvers: Sequence[str] | None = None
    reproposer: Reproposer | None = None
    reviser: Reviser | None = None
    # Local mode resumes synchronously, so the page can say how it ended; the Lambda cannot.
    report_outcome: bool = False

    @property
    def can_revise(self) -> bool:
        """The pages offer "Change the plan" (a reviser is composed in)."""
        return self.reviser is not None

    def clock(self) -> datetime:
        """The runtime's clock."""
        return self.rt.clock()

    def _view(self, approval_id: str, secret: str) -> LinkView | None:
        return open_link(self.rt, Link(approval_id, secret))

    def show(self, query: Mapping[str, str]) -> PageResponse:
        """The page for a valid link (open: the plan and the forms; closed: what happened), else the neutral
        page. Writes nothing."""
        now = self.clock()
        view = self._view(query.get("a", ""), query.get("s", ""))
        if view is None:
            return PageResponse(404, page.render_neutral(), "not_usable")
        if view.is_open(now) and not view.approval.has_voted(view.approver):
            body = page.render_confirmation(
                view, now=now, can_repropose=self.reproposer is not None, can_revise=self.can_revise
            )
            return PageResponse(200, body, "stale_shown" if view.changes else "confirmation_shown")
        return PageResponse(200, self._state(view, now), "state_shown")

    def post(self, query: Mapping[str, str], form: Mapping[str, str]) -> PageResponse:
        """Decide (or propose again) for the link in ``form`` fields ``a``/``s``, else in ``query``."""
        # The page's forms post back to the link (query string); a client that sends a/s as fields wins.
        approval_id = form.get("a") or query.get("a", "")
        secret = form.get("s") or query.get("s", "")
        choice = form.get("decision", "")
        reviewed_hash = form.get("reviewed_hash", "")
        if choice == "repropose":
            return self._repropose(approval_id, secret, reviewed_hash)
        if choice == "revise":
            return self._revise(approval_id, secret, reviewed_hash, form)
        if choice not in ("approve", "reject"):
            return PageResponse(400, page.render_invalid("the form is incomplete or malformed"), "invalid")
        command = Decide(
            approval_id=approval_id,
            secret=secret,
            approve=choice == "approve",
            reviewed_hash=reviewed_hash,
            reason=form.get("reason", ""),
            allowed_approvers=self.allowed_approvers,
        )
        result = decide(self.rt, command)
        return self._answer(result, form.get("reason", ""))

    def _answer(self, result: DecideResult, reason: str) -> PageResponse:
        now = self.clock()
        view = result.view
        if view is None:
            return PageResponse(404, page.render_neutral(), "closed")
        receipted = " with a signed receipt" if self.rt.receipt_key is not None else ""
        if result.wake == "expired":
            problem = "the workflow no longer waits for this decision, so nothing will act on it; the plan expired"
            return PageResponse(409, self._state(view, now, problem=problem), "closed")
        if result.status in ("recorded", "vote_recorded") and result.decision is not None:
            verdict = "approval" if result.decision.approved else "rejection"
            notice = f"Your {verdict} (by {view.approver}) was recorded{receipted}."
            if result.wake == "retry_later":
                notice += " The workflow could not be reached just now; it is woken again automatically."
            resumed = self.report_outcome and result.status == "recorded"
            return PageResponse(200, self._state(view, now, notice=notice, resumed=resumed), result.status)
        if result.status == "already_recorded":
            return PageResponse(200, self._state(view, now, notice="This decision was already recorded."), "closed")
        if result.status == "invalid" or (result.code in _FORM_AGAIN and view.is_open(now)):
            status, label = (400, "invalid") if result.status == "invalid" else _FORM_AGAIN[result.code]  # type: ignore[index]
            body = page.render_confirmation(
                view,
                now=now,
                can_repropose=self.reproposer is not None,
                message=result.detail,
                reason=reason,
                can_revise=self.can_revise,
            )
            return PageResponse(status, body, label)
        return PageResponse(409, self._page(view, now, result.detail), "closed")

    def _state(self, view: LinkView, now: datetime, **shown: Any) -> str:
        """What happened to the approval; once its plan applied, also the messages that were queued."""
        record = view.outcome
        applied = record is not None and record.completion is not None and record.completion.outcome == "applied"
        queued = describe_outbox(self.rt.store.outbox_messages(view.approval.proposal_hash)) if applied else []
        return page.render_state(view, now=now, queued=queued, **shown)

    def _page(self, view: LinkView, now: datetime, problem: str) -> str:
        """The page a holder sees after a POST that recorded nothing: the form if they may still decide."""
        if view.is_open(now) and not view.approval.has_voted(view.approver):
            return page.render_confirmation(
                view, now=now, can_repropose=self.reproposer is not None, message=problem, can_revise=self.can_revise
            )
        return self._state(view, now, problem=problem)

    def _repropose(self, approval_id: str, secret: str, reviewed_hash: str) -> PageResponse:
        now = self.clock()
        view = self._view(approval_id, secret)
        if view is None:
            return PageResponse(404, page.render_neutral(), "closed")
        if self.reproposer is None or not view.is_open(now) or reviewed_hash != view.checkpoint.proposal_hash:
            problem = "this plan cannot be proposed again from here (it is closed, or it is not the plan shown)"
            return PageResponse(409, self._page(view, now, problem), "closed")
        if not view.changes:
            body = page.render_confirmation(view, now=now, message="the plan is not stale: approve or reject it")
            return PageResponse(409, body, "not_stale")
        try:
            new_hash = self.reproposer(view)
        except OrchestratorError as exc:
            # Lost to a concurrent "propose again" (or a decision): nothing was written; say what stands now.
            after = self._view(approval_id, secret) or view
            return PageResponse(409, self._page(after, now, str(exc)), "closed")
        return PageResponse(200, page.render_reproposed(proposal_hash=new_hash), "reproposed")

    def _revise(self, approval_id: str, secret: str, reviewed_hash: str, form: Mapping[str, str]) -> PageResponse:
        now = self.clock()
        view = self._view(approval_id, secret)
        if view is None:
            return PageResponse(404, page.render_neutral(), "closed")
        if self.reviser is None or not view.is_open(now) or reviewed_hash != view.checkpoint.proposal_hash:
            problem = "this plan cannot be changed from here (it is closed, or it is not the plan shown)"
            if was_revised(view.approval):  # a second "Change the plan" (a double click, another approver)
                problem = superseded_refusal(view.approval).message
            return PageResponse(409, self._page(view, now, problem), "closed")
        guidance = {name: str(form.get(name, "")).strip() for name in GUIDANCE_FIELDS}
        try:
            new_hash, version = self.reviser(view, guidance)
        except OrchestratorError as exc:
            after = self._view(approval_id, secret) or view
            return PageResponse(409, self._page(after, now, str(exc)), "not_revised")
        return PageResponse(200, page.render_revised(proposal_hash=new_hash, version=version), "revised")
