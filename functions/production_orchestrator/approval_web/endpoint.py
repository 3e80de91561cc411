"""The approval link's HTTP behaviour, shared by the decision Lambda and the local server. No strands.

    GET/HEAD ?a=&s=  -> confirmation page (plan, what changed if stale) or the neutral page; reads only
    POST ?a=&s= form -> decision=approve|reject: authorize, receipt, vote; once decided wake the workflow
                        decision=repropose (stale plans only): plan again on the current shop, same links

The link secret arrives in the query string (the forms post back to their own URL); a form field ``s``
is accepted too. Neither is ever logged or rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..domain.outbox import describe_outbox
from ..domain.ports import ApprovalStore, MacKey, ShopStore, WorkflowCallback
from ..lifecycle.decide import decide
from ..lifecycle.evidence import load_checkpoint
from ..lifecycle.review import LinkView, open_link, open_stale, what_changed
from . import pages as page

Reproposer = Callable[[LinkView], str]  # runs the agent again; returns the new proposal hash


@dataclass(frozen=True)
class PageResponse:
    """Status, HTML and a short outcome label for logs (never a secret)."""

    status: int
    body: str
    label: str


@dataclass
class DecisionEndpoint:
    """One composition of the stores and the wake-up for the approval pages."""

    store: ShopStore
    approvals: ApprovalStore
    callback: WorkflowCallback
    clock: Callable[[], datetime]
    mac_key: MacKey | None = None
    allowed_approvers: Sequence[str] | None = None
    reproposer: Reproposer | None = None
    # Local mode resumes synchronously, so the page can say how it ended; the Lambda cannot.
    report_outcome: bool = False

    def show(self, query: Mapping[str, str]) -> PageResponse:
        """The confirmation page for a usable link, else the neutral page. Writes nothing."""
        now = self.clock()
        view = open_link(self.store, self.approvals, query.get("a", ""), query.get("s", ""), now)
        if view is None:
            stale = open_stale(self.store, self.approvals, query.get("a", ""), query.get("s", ""), now)
            if stale is None or self.reproposer is None:
                return PageResponse(404, page.render_neutral(), "not_usable")
            view = stale
        body = page.render_confirmation(
            view.checkpoint,
            view.proposal,
            approval=view.approval,
            approver=view.approver,
            now=now,
            may_approve=view.may_approve,
            changes=view.changes,
            can_repropose=self.reproposer is not None,
        )
        return PageResponse(200, body, "stale_shown" if view.changes else "confirmation_shown")

    def post(self, query: Mapping[str, str], form: Mapping[str, str]) -> PageResponse:
        """Decide (or propose again) for the link in ``form`` fields ``a``/``s``, else in ``query``."""
        # The page's forms post back to the link (query string); a client that sends a/s as fields wins.
        approval_id = form.get("a") or query.get("a", "")
        secret = form.get("s") or query.get("s", "")
        choice = form.get("decision", "")
        reviewed_hash = form.get("reviewed_hash", "")
        if choice == "repropose":
            return self._repropose(approval_id, secret, reviewed_hash)
        if choice not in ("approve", "reject"):
            return PageResponse(400, page.render_invalid("the form is incomplete or malformed"), "invalid")
        result = decide(
            self.store,
            self.approvals,
            self.callback,
            approval_id=approval_id,
            secret=secret,
            approve=choice == "approve",
            reviewed_hash=reviewed_hash,
            reason=form.get("reason", ""),
            now=self.clock(),
            mac_key=self.mac_key,
            allowed_approvers=self.allowed_approvers,
        )
        if result.status == "recorded" and result.decision is not None:
            outcome, changes = self._outcome(result.checkpoint_id) if self.report_outcome else ("", None)
            queued = self.store.outbox_messages(result.decision.reviewed_hash) if outcome == "applied" else []
            body = page.render_recorded(
                approved=result.decision.approved,
                approver=result.approver,
                proposal_hash=result.decision.reviewed_hash,
                outcome=outcome,
                changes=changes,
                receipted=self.mac_key is not None,
                queued=describe_outbox(queued),
            )
            return PageResponse(200, body, "recorded")
        if result.status == "vote_recorded" and result.decision is not None:
            body = page.render_vote_recorded(
                approver=result.approver,
                proposal_hash=result.decision.reviewed_hash,
                given=result.approvals_given,
                needed=result.approvals_needed,
                receipted=self.mac_key is not None,
            )
            return PageResponse(200, body, "vote_recorded")
        if result.status == "hash_mismatch":
            return PageResponse(409, page.render_hash_mismatch(), "hash_mismatch")
        if result.status == "unauthorized":
            return PageResponse(403, page.render_unauthorized(result.detail), "unauthorized")
        if result.status == "invalid":
            return PageResponse(400, page.render_invalid(result.detail), "invalid")
        return PageResponse(404, page.render_neutral(), "closed")

    def _outcome(self, checkpoint_id: str) -> tuple[str, list[str] | None]:
        """How the (synchronous, local) resume ended, read back from the store."""
        record = self.store.get_decision(checkpoint_id)
        if record is None:
            return "refused", what_changed(self.store, load_checkpoint(self.store, checkpoint_id))
        if not record.decision.approved:
            return "rejected", None
        return ("applied" if self.store.application_count(record.decision.reviewed_hash) else "refused"), None

    def _repropose(self, approval_id: str, secret: str, reviewed_hash: str) -> PageResponse:
        if self.reproposer is None:
            return PageResponse(404, page.render_neutral(), "closed")
        view = open_stale(self.store, self.approvals, approval_id, secret, self.clock())
        if view is None or reviewed_hash != view.checkpoint.proposal_hash:
            return PageResponse(404, page.render_neutral(), "closed")
        new_hash = self.reproposer(view)
        return PageResponse(200, page.render_reproposed(proposal_hash=new_hash), "reproposed")
