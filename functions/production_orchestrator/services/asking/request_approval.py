"""Request approval: the run's approval record (policy, task token, link-secret hashes), then one link per
approver.

    locally: policy checked before the agent runs -> the approval is written in the checkpoint's transaction
             -> ``start`` prints each approver's link (stdout is the local e-mail)
    in AWS:  policy checked before the agent runs -> checkpoint -> WaitForHumanDecision: request_approval
             creates the approval with the task token (once per task: a retry finds it and sends nothing
             new) -> one e-mail per approver with the link ?a=<approval id>&s=<secret>

A link secret is 32 random bytes; only its SHA-256 is stored, and the raw task token never leaves the
approval record except in the ``SendTaskSuccess`` call.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlencode

from ...domain.approval.approvals import ApprovalRecord, ApproverLink, hash_link_secret
from ...domain.approval.links import LinkMint
from ...domain.approval.policy import ApprovalPolicy, checked_policy
from ...domain.approval.revising import revision_linked
from ...domain.errors import IntegrityError, ValidationError
from ...domain.limits import DEFAULT_APPROVER, DEFAULT_MAX_VERSIONS
from ...domain.messages.approval_mail import is_mail_address
from ...domain.planning.proposal import ProposalContent
from ...domain.ports import ApprovalMessage
from ...domain.presentation import fingerprint, render_review
from ...domain.records import Checkpoint, audit_event, utc_iso
from ..evidence import review
from ..runtime import Runtime, need

LOCAL_TASK_TOKEN = "local"  # locally nothing waits on a token: the decision endpoint runs the resume itself


def approval_link(base_url: str, approval_id: str, secret: str) -> str:
    """The link an approver opens: approval id and link secret, never the task token."""
    return f"{base_url}?{urlencode({'a': approval_id, 's': secret})}"


@dataclass(frozen=True)
class LinkPlan:
    """The approval a run will get: its policy, the task token, and either a fresh secret per approver or the
    links of the approval it replaces ("propose again": the same links open the new plan)."""

    policy: ApprovalPolicy
    task_token: str
    secrets: dict[str, str] = field(default_factory=dict, repr=False)
    supersedes: ApprovalRecord | None = None
    delivered: bool = True  # the links reach the approvers as the record is written (``start`` prints them)
    approval_id: str = field(default_factory=lambda: f"appr-{secrets.token_hex(16)}")
    minted: dict[str, ApproverLink] = field(default_factory=dict)  # what the record stores of each link
    mailed: frozenset[str] = frozenset()  # approvers whose link goes through the outbox, queued after the record

    @classmethod
    def fresh(
        cls, policy: ApprovalPolicy, task_token: str, *, delivered: bool = True, mint: LinkMint | None = None,
        mail: bool = False,
    ) -> LinkPlan:  # fmt: skip
        """New links for every approver of a policy that can be satisfied (derivable ones with a keyed ``mint``);
        with ``mail``, the e-mail approvers' links go through the outbox (derivable links only)."""
        checked = checked_policy(policy)
        made = {a: (mint or LinkMint()).mint(a) for a in checked.approvers}
        mailed = frozenset(a for a, (_, link) in made.items() if mail and link.nonce and is_mail_address(a))
        return cls(checked, task_token, {a: s for a, (s, _) in made.items()}, delivered=delivered,
                   minted={a: link for a, (_, link) in made.items()}, mailed=mailed)  # fmt: skip

    @classmethod
    def successor(cls, old: ApprovalRecord) -> LinkPlan:
        """The plan of the approval that replaces ``old``: the same policy, token and links."""
        return cls(old.policy, old.task_token, supersedes=old)

    def record(self, checkpoint: Checkpoint, proposal: ProposalContent, now: datetime) -> ApprovalRecord:
        """The approval record for ``checkpoint``; what this plan needs is computed from its procurement."""
        procured = sum(action.quantity for action in proposal.procurement_actions)
        required = self.policy.required_for(procured)
        if required > len(self.policy.eligible()) and self.policy.restricted:
            raise ValidationError(f"the plan needs {required} approvals but only {len(self.policy.eligible())} may")
        old = self.supersedes
        return ApprovalRecord(
            approval_id=self.approval_id,
            checkpoint_id=checkpoint.checkpoint_id,
            proposal_hash=checkpoint.proposal_hash,
            created_at=utc_iso(now),
            expires_at=checkpoint.expires_at,
            task_token=self.task_token,
            policy=self.policy,
            links=old.links if old is not None else tuple(self.minted.values()),
            required=required,
            notified=old.notified
            if old
            else tuple(a for a in self.policy.approvers if self.delivered and a not in self.mailed),
            supersedes="" if old is None else old.approval_id,
            version=proposal.version,
        )


def message_for(
    checkpoint: Checkpoint, proposal: ProposalContent, approval_id: str, approver: str, link: str
) -> ApprovalMessage:
    """One approver's notification: the plan in words and their own link."""
    body = "\n".join(
        [
            "A production plan is waiting for your decision.",
            "",
            render_review(checkpoint, proposal),
            "",
            "Open this link to review the plan and decide. Opening it changes nothing;",
            "only the Approve or Reject button on the page records a decision:",
            link,
            "",
            "The link is yours alone: do not forward it.",
        ]
    )
    subject = f"Approve plan for order {proposal.target_order.id}? [{fingerprint(checkpoint.proposal_hash)}]"
    return ApprovalMessage(approval_id=approval_id, approver=approver, subject=subject, body=body, link=link)


def operator_plan(requester: str = "operator") -> LinkPlan:
    """The local default: one link, for ``shop-owner``, and the local operator may decide at the CLI."""
    return LinkPlan.fresh(
        ApprovalPolicy(
            approvers=(DEFAULT_APPROVER,), requester=requester, restricted=False, max_versions=DEFAULT_MAX_VERSIONS
        ),
        LOCAL_TASK_TOKEN,
    )


@dataclass(frozen=True)
class ApprovalRequested:
    """What a request produced (no secret in it)."""

    approval_id: str
    checkpoint_id: str
    proposal_hash: str
    expires_at: str
    notified: int


@dataclass(frozen=True)
class RequestApproval:
    """Ask for the approval of ``checkpoint_id``'s plan (``proposal_hash``, as the workflow names it) for the
    task ``task_token``, under ``policy``, with links starting ``link_base_url``."""

    checkpoint_id: str
    proposal_hash: str
    task_token: str = field(repr=False)
    policy: ApprovalPolicy
    link_base_url: str
    supersedes: str = ""  # a revised version (AWS): the approval of the version it replaces


def _linked(rt: Runtime, supersedes: str, record: ApprovalRecord, proposal: ProposalContent) -> None:
    """The replaced version's approval names this one (its revision ask is answered); a retry is a no-op."""
    revision = proposal.revision
    if revision is None:
        raise IntegrityError(f"approval {record.approval_id} supersedes {supersedes}, but its plan is no revision")

    def link(before: ApprovalRecord) -> ApprovalRecord:
        if before.proposal_hash != revision.supersedes:
            raise IntegrityError(f"approval {supersedes} is not about the plan version {revision.version} revises")
        return revision_linked(before, record.approval_id, record.proposal_hash)

    rt.store.change_approval(supersedes, link, lambda _: None)


def request_approval(rt: Runtime, cmd: RequestApproval) -> ApprovalRequested:
    """The approval of ``checkpoint_id`` for the task ``task_token``, and a link to every approver not yet sent one.

    Once per task: a retry (a Lambda redelivery, a retried wait state) finds the approval the first attempt
    created and sends only the links that did not go out (with a new secret: the lost one was never stored).
    """
    store, approvals, notifier, now = rt.store, rt.approvals, need(rt.notifier, "approval notifier"), rt.clock()
    checkpoint_id, proposal_hash, task_token = cmd.checkpoint_id, cmd.proposal_hash, cmd.task_token
    checkpoint, proposal = review(store, checkpoint_id)
    if proposal_hash != checkpoint.proposal_hash:
        raise IntegrityError(f"the workflow names another proposal than checkpoint {checkpoint_id}")
    existing = approvals.approvals_for(checkpoint_id)
    fresh: dict[str, str] = {}
    if existing:
        record = existing[-1]
    else:
        plan = LinkPlan.fresh(cmd.policy, task_token, delivered=False)
        record, fresh = plan.record(checkpoint, proposal, now), plan.secrets
        # A revised version gets new links (and the new task token): its approvers decide on it afresh.
        record = record.model_copy(update={"supersedes": cmd.supersedes}) if cmd.supersedes else record
        approvals.create_approval(record)  # stored before anything is sent: a link always points at a record
        store.append_audit(
            audit_event(
                "approval_created",
                now,
                session_id=checkpoint.session_id,
                checkpoint_id=checkpoint.checkpoint_id,
                proposal_hash=checkpoint.proposal_hash,
                approval_id=record.approval_id,
                approvers=list(record.policy.approvers),
                required=record.required,
                **({"supersedes": record.supersedes} if record.supersedes else {}),
            )
        )
    if record.supersedes and record.supersedes == cmd.supersedes:
        _linked(rt, record.supersedes, record, proposal)
    if record.status == "pending" and record.task_token != task_token:
        record = approvals.record_delivery(record.approval_id, task_token)  # a retried wait state: a new token
    sent = 0
    for approver in record.policy.approvers:
        if record.status != "pending" or approver in record.notified:
            continue
        # A link that did not go out before a retry is lost (only its hash was kept): it gets a new secret.
        secret = fresh.get(approver) or secrets.token_urlsafe(32)
        link = approval_link(cmd.link_base_url, record.approval_id, secret)
        notifier.notify(message_for(checkpoint, proposal, record.approval_id, approver, link))
        record = approvals.record_delivery(record.approval_id, task_token, approver, hash_link_secret(secret))
        sent += 1
    return ApprovalRequested(
        approval_id=record.approval_id,
        checkpoint_id=checkpoint.checkpoint_id,
        proposal_hash=checkpoint.proposal_hash,
        expires_at=record.expires_at,
        notified=sent,
    )
