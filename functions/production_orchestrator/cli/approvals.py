"""The approval side of the local CLI: links at start, resume of a page decision, propose again, the local
pages' composition, and the policy checks ``resume`` makes.

Local approver configuration is per run, fixed in its approval record at ``start``:
``--approvers a@x,b@y`` (default: one approver, ``shop-owner``), ``--requester`` (default: the OS user),
``--separation-of-duties`` (off by default locally), ``--quorum N --quorum-above QTY``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.approvals import ApprovalRecord
from ..domain.errors import RefusalCode, ResumeRefusedError, ValidationError
from ..domain.ports import ApprovalMessage, ApprovalStore, ShopStore
from ..domain.receipts import make_receipt
from ..domain.records import Checkpoint, Decision, ProviderBinding, parse_utc
from ..lifecycle.authorize import authorize_direct, receipt_event
from ..lifecycle.evidence import load_checkpoint, review
from ..lifecycle.repropose import supersede
from ..lifecycle.request_approval import request_approval
from ..lifecycle.review import current_approval, what_changed
from ..lifecycle.runtime import Runtime
from . import inputs
from .output import PROG, say
from .root import DEFAULT_LINK_BASE, local_approvals, local_mac_key, local_runtime, record_link_base, utc_now

if TYPE_CHECKING:
    from ..approval_web.endpoint import DecisionEndpoint
    from ..lifecycle.start import StartResult

DEFAULT_APPROVER = "shop-owner"
LOCAL_TASK_TOKEN = "local"  # locally nothing waits on a token: the decision endpoint runs the resume itself


def add_start_flags(parser: argparse.ArgumentParser) -> None:
    """Who may decide on the run ``start`` begins."""
    group = parser.add_argument_group("approval policy (fixed in the approval record)")
    group.add_argument(
        "--approvers",
        type=inputs.names,
        default=None,
        metavar="A,B",
        help=f"comma-separated approver names or e-mails, each gets their own link (default: {DEFAULT_APPROVER}, "
        "and then resume --approver stays open to the local operator)",
    )
    group.add_argument("--requester", default=None, metavar="NAME", help="who starts this run (default: the OS user)")
    group.add_argument(
        "--separation-of-duties",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the requester may not approve their own plan (off locally, on in AWS)",
    )
    group.add_argument(
        "--quorum",
        type=inputs.at_least_one,
        default=2,
        metavar="N",
        help="approvals needed when procurement is above --quorum-above",
    )
    group.add_argument(
        "--quorum-above",
        type=inputs.zero_or_more,
        default=None,
        metavar="QTY",
        help="procurement quantity above which the plan needs the quorum (default: never)",
    )
    group.add_argument(
        "--link-base",
        type=inputs.link_base,
        default=DEFAULT_LINK_BASE,
        metavar="URL",
        help="http(s) URL the approval links start with; `serve` answers on http://127.0.0.1:PORT/approve",
    )


def _requester(args: argparse.Namespace) -> str:
    return str(args.requester or os.environ.get("USER") or "operator")


@dataclass
class _Collect:
    """An ApprovalNotifier that keeps the messages for ``start`` to print (the links are the local 'e-mail')."""

    messages: list[ApprovalMessage] = field(default_factory=list)

    def notify(self, message: ApprovalMessage) -> None:
        self.messages.append(message)


@dataclass(frozen=True)
class IssuedLinks:
    """The approval ``start`` created and each approver's link (stdout is the local 'e-mail')."""

    approval_id: str
    links: tuple[tuple[str, str], ...]  # (approver, link), in --approvers order

    def values(self) -> dict[str, Any]:
        """``APPROVAL_ID=``, ``APPROVAL_URL=`` (the first link), then ``APPROVER_<n>=`` / ``APPROVAL_URL_<n>=``."""
        out: dict[str, Any] = {"approval_id": self.approval_id, "approval_url": self.links[0][1]}
        for number, (approver, link) in enumerate(self.links, start=1):
            out[f"approver_{number}"] = approver
            out[f"approval_url_{number}"] = link
        return out


def request_links(args: argparse.Namespace, data_dir: Path, rt: Runtime, result: StartResult) -> IssuedLinks:
    """Create the run's approval with one link per approver."""
    configured = list(args.approvers or ())
    notifier = _Collect()
    requested = request_approval(
        rt.store,
        local_approvals(data_dir),
        notifier,
        checkpoint_id=result.checkpoint.checkpoint_id,
        proposal_hash=result.checkpoint.proposal_hash,
        task_token=LOCAL_TASK_TOKEN,
        approvers=configured or [DEFAULT_APPROVER],
        link_base_url=args.link_base,
        now=rt.clock(),
        requester=_requester(args),
        separation_of_duties=args.separation_of_duties,
        quorum=args.quorum,
        quorum_above_quantity=args.quorum_above,
        restricted=bool(configured),
    )
    record_link_base(data_dir, requested.approval_id, args.link_base)
    return IssuedLinks(requested.approval_id, tuple((m.approver, m.link) for m in notifier.messages))


def authorize(data_dir: Path, checkpoint_id: str, approver: str, approved: bool) -> None:
    """``resume --approver`` meets the run's policy; raises ``ResumeRefusedError(UNAUTHORIZED_APPROVER)``."""
    authorize_direct(local_approvals(data_dir), checkpoint_id, approver, approved)


def print_stale(data_dir: Path, checkpoint_id: str, refusal: ResumeRefusedError) -> None:
    """After a STALE_DOMAIN_STATE refusal: what changed since the plan was proposed, and how to propose again."""
    if refusal.code is not RefusalCode.STALE_DOMAIN_STATE:
        return
    store = local_runtime(data_dir, create=False).store
    changes = what_changed(store, load_checkpoint(store, checkpoint_id)) or []
    say("changed since the plan was proposed:")
    for line in changes:
        say(f"  - {line}")
    say(f"propose again: {PROG} repropose --data-dir {data_dir} --checkpoint {checkpoint_id}")


def record_cli_receipt(data_dir: Path, store: ShopStore, checkpoint: Checkpoint, decision: Decision) -> None:
    """A decision typed at the CLI gets its receipt too, kept in the audit trail."""
    receipt = make_receipt(checkpoint, decision, local_mac_key(data_dir))
    store.append_audit(receipt_event(checkpoint, receipt, at=utc_now()))


def resume_approval(
    data_dir: Path,
    rt: Runtime,
    binding: ProviderBinding,
    checkpoint_id: str,
    approval_id: str,
    before_claim: Callable[[], None] | None = None,
) -> Any:
    """Resume ``checkpoint_id`` with the decision recorded on ``approval_id`` (its receipts verified)."""
    from ..lifecycle.resume_approval import resume_decided

    return resume_decided(
        rt,
        local_approvals(data_dir),
        binding,
        checkpoint_id=checkpoint_id,
        approval_id=approval_id,
        mac_key=local_mac_key(data_dir),
        before_claim=before_claim,
    )


def _approval_to_replace(
    approvals: ApprovalStore, approval_id: str | None, checkpoint_id: str | None
) -> ApprovalRecord:
    old: ApprovalRecord | None = None
    if approval_id:
        old = current_approval(approvals, approval_id)
    elif checkpoint_id:
        found = approvals.approvals_for(checkpoint_id)
        old = current_approval(approvals, found[-1].approval_id) if found else None
    if old is None:
        raise ValidationError("no approval to propose again for (pass --approval or --checkpoint of a local run)")
    return old


def repropose(
    data_dir: Path, rt: Runtime, binding: ProviderBinding, approval_id: str | None, checkpoint_id: str | None
) -> dict[str, Any]:
    """Plan again on the current shop; the run's approval is replaced (same approvers, same links)."""
    from ..lifecycle.start import PlanRequest, start_run

    approvals = local_approvals(data_dir)
    old = _approval_to_replace(approvals, approval_id, checkpoint_id)
    checkpoint, proposal = review(rt.store, old.checkpoint_id)
    if what_changed(rt.store, checkpoint) is None:
        raise ValidationError(f"the plan of {checkpoint.checkpoint_id} is not stale: approve or reject it instead")
    if rt.store.get_decision(checkpoint.checkpoint_id) is not None:
        raise ValidationError(f"checkpoint {checkpoint.checkpoint_id} was already decided")
    window = max(parse_utc(checkpoint.expires_at) - parse_utc(checkpoint.created_at), timedelta(seconds=1))
    result = start_run(rt, PlanRequest.again(checkpoint, proposal), binding, window)
    new = supersede(rt.store, approvals, old, result.checkpoint, rt.clock())
    return {
        "checkpoint_id": result.checkpoint.checkpoint_id,
        "proposal_hash": result.checkpoint.proposal_hash,
        "approval_id": new.approval_id,
        "superseded_approval_id": old.approval_id,
    }


def local_endpoint(data_dir: Path, provider_args: list[str]) -> DecisionEndpoint:
    """The local composition of the pages: SQLite stores, the key file, resumes and re-proposals as fresh
    processes."""
    from ..approval_web.endpoint import DecisionEndpoint
    from .processes import SubprocessRepropose, SubprocessResume

    return DecisionEndpoint(
        store=local_runtime(data_dir, create=False).store,
        approvals=local_approvals(data_dir),
        callback=SubprocessResume(data_dir, provider_args),
        clock=utc_now,
        mac_key=local_mac_key(data_dir),
        reproposer=SubprocessRepropose(data_dir, provider_args),
        report_outcome=True,
    )
