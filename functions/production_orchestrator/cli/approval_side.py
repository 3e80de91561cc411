"""The approval side of the local CLI: the run's policy and links at start, the resume of a typed or a page
decision, propose again, and the local pages' composition.

Local approver configuration is per run, fixed in its approval record at ``start``:
``--approvers a@x,b@y`` (default: one approver, ``shop-owner``, and the local operator may decide at the
CLI), ``--requester`` (default: the OS user), ``--separation-of-duties`` (off by default locally),
``--quorum N --quorum-above QTY``, ``--max-versions N``. A policy that can never be satisfied is refused before
the agent runs.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import ValidationError
from ..domain.limits import DEFAULT_APPROVER, DEFAULT_MAX_VERSIONS
from . import inputs
from .output import PROG, say
from .root import DEFAULT_LINK_BASE, local_approvals, local_runtime, record_link_base, utc_now

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ..approval_web.endpoint import DecisionEndpoint
    from ..domain.errors import ResumeRefusedError
    from ..domain.ports import MacKey
    from ..domain.records import ProviderBinding
    from ..services.asking.request_approval import LinkPlan
    from ..services.runs.start import StartResult
    from ..services.runtime import Runtime


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
        "--max-versions",
        type=inputs.versions,
        default=DEFAULT_MAX_VERSIONS,
        metavar="N",
        help="how many versions the plan may have, the first and its revisions (1: none; a revision of the last "
        "is refused with VERSION_LIMIT)",
    )
    group.add_argument(
        "--print-links",
        action="store_true",
        help="print every approver's link, e-mail addresses too, instead of queueing their approval requests for "
        "`outbox send` (the links then sit in this terminal's output)",
    )
    group.add_argument(
        "--link-base",
        type=inputs.link_base,
        default=None,
        metavar="URL",
        help="http(s) URL the approval links start with; `serve` answers on http://127.0.0.1:PORT/approve "
        f"(default: {DEFAULT_LINK_BASE})",
    )


def link_plan(args: argparse.Namespace, key: MacKey | None = None) -> LinkPlan:
    """The run's approval policy from the flags, checked before anything is created or any model called
    (``ValidationError``: one ``error:`` line, exit 2, nothing written). With the data dir's ``key`` the links
    are derivable (a reminder carries the same link) and e-mail approvers' go through the outbox unless
    ``--print-links``."""
    from ..domain.approval.links import LinkMint
    from ..domain.approval.policy import build_policy
    from ..services.asking.request_approval import LOCAL_TASK_TOKEN, LinkPlan

    configured = [a for a in (args.approvers or ()) if str(a).strip()]
    policy = build_policy(
        approvers=configured or [DEFAULT_APPROVER],
        requester=str(args.requester if args.requester is not None else os.environ.get("USER") or "operator"),
        separation_of_duties=args.separation_of_duties,
        quorum=args.quorum,
        quorum_above=args.quorum_above,
        restricted=bool(configured),
    ).limited_to(args.max_versions)
    return LinkPlan.fresh(
        policy, LOCAL_TASK_TOKEN, mint=LinkMint(key) if key is not None else None, mail=not args.print_links
    )


@dataclass(frozen=True)
class IssuedLinks:
    """The approval ``start`` created and each approver's link (stdout is the local 'e-mail'), or "" for an
    approver whose link waits in the outbox."""

    approval_id: str
    required: int
    links: tuple[tuple[str, str], ...]  # (approver, link or ""), in --approvers order

    def values(self) -> dict[str, Any]:
        """``APPROVAL_ID=``, ``APPROVALS_REQUIRED=``, ``APPROVAL_URL=`` (the first printed link), then
        ``APPROVER_<n>=`` and ``APPROVAL_URL_<n>=`` (printed) or ``APPROVAL_SENT_<n>=outbox``."""
        printed = [link for _, link in self.links if link]
        out: dict[str, Any] = {"approval_id": self.approval_id, "approvals_required": self.required}
        if printed:
            out["approval_url"] = printed[0]
        for number, (approver, link) in enumerate(self.links, start=1):
            out[f"approver_{number}"] = approver
            if link:
                out[f"approval_url_{number}"] = link
            else:
                out[f"approval_sent_{number}"] = "outbox"
        return out


def issued_links(args: argparse.Namespace, data_dir: Path, result: StartResult, plan: LinkPlan) -> IssuedLinks:
    """The links of the approval ``start`` wrote with its checkpoint: printed, or (e-mail approvers) queued in the
    outbox in one more transaction, their link rebuilt from the key when ``outbox send`` delivers it."""
    from ..services.asking.approval_mail import queue_requests
    from ..services.asking.request_approval import approval_link

    approval = result.approval
    assert approval is not None  # a local start always writes the run's approval with its checkpoint
    record_link_base(data_dir, approval.approval_id, args.link_base)
    if plan.mailed:
        rt = local_runtime(data_dir, create=False)
        assert rt.approvals is not None
        queue_requests(rt.store, rt.approvals, approval.approval_id, utc_now())
    links = tuple(
        (a, "" if a in plan.mailed else approval_link(args.link_base, approval.approval_id, plan.secrets[a]))
        for a in approval.policy.approvers
    )
    return IssuedLinks(approval.approval_id, approval.required, links)


def print_stale(data_dir: Path, checkpoint_id: str, refusal: ResumeRefusedError) -> None:
    """After a STALE_DOMAIN_STATE refusal: what changed since the plan was proposed, and what a person can do."""
    from ..domain.errors import RefusalCode
    from ..services.evidence import load_checkpoint, what_changed

    if refusal.code is not RefusalCode.STALE_DOMAIN_STATE:
        return
    rt = local_runtime(data_dir, create=False)
    checkpoint = load_checkpoint(rt.store, checkpoint_id)
    say("no longer holds since the plan was proposed:")
    for line in what_changed(rt.store, checkpoint, rt.clock()) or []:
        say(f"  - {line}")
    where = f"--data-dir {data_dir} --checkpoint {checkpoint_id}"
    say(f"propose again: {PROG} repropose {where}")
    say(
        f"or cancel it:  {PROG} resume {where} --decision reject --reviewed-hash {checkpoint.proposal_hash} "
        "--reason TEXT"
    )


def resume_approval(
    data_dir: Path,
    rt: Runtime,
    binding: ProviderBinding,
    checkpoint_id: str,
    approval_id: str,
    before_claim: Callable[[], None] | None = None,
) -> Any:
    """Resume ``checkpoint_id`` with the decision recorded on ``approval_id`` (its receipts verified)."""
    from ..services.deciding.resume_approval import ResumeDecided, resume_decided

    return resume_decided(rt, ResumeDecided(checkpoint_id, approval_id, binding, before_claim=before_claim))


def repropose(
    data_dir: Path, rt: Runtime, binding: ProviderBinding, approval_id: str | None, checkpoint_id: str | None
) -> dict[str, Any]:
    """Plan again on the current shop; the run's approval is replaced (same policy, same links)."""
    from ..services.runs.repropose import ProposeAgain, propose_again

    if not approval_id and checkpoint_id:
        found = local_approvals(data_dir).approvals_for(checkpoint_id)
        approval_id = found[-1].approval_id if found else ""
    if not approval_id:
        raise ValidationError("no approval to propose again for (pass --approval or --checkpoint of a local run)")
    result = propose_again(rt, ProposeAgain(approval_id, binding))
    assert result.approval is not None
    return {
        "checkpoint_id": result.checkpoint.checkpoint_id,
        "proposal_hash": result.checkpoint.proposal_hash,
        "approval_id": result.approval.approval_id,
        "approvals_required": result.approval.required,
        "superseded_approval_id": result.approval.supersedes,
    }


def local_endpoint(data_dir: Path, provider_args: list[str]) -> DecisionEndpoint:
    """The local composition of the pages: SQLite stores, the key file, resumes and re-proposals as fresh
    processes."""
    from ..approval_web.endpoint import DecisionEndpoint
    from .processes import SubprocessRepropose, SubprocessResume, SubprocessRevise

    rt = local_runtime(data_dir, create=False)
    return DecisionEndpoint(
        rt=replace(rt, callback=SubprocessResume(data_dir, provider_args)),
        reproposer=SubprocessRepropose(data_dir, provider_args),
        reviser=SubprocessRevise(data_dir, provider_args),
        report_outcome=True,
    )


def local_held_page(data_dir: Path, provider_args: list[str]) -> tuple[Any, str]:
    """The operator's held-request page for ``serve`` (approval_web/held_page.py) and its key, minted now: only
    its digest stays in the server; the key is printed once, on the terminal that started ``serve``."""
    import secrets

    from ..approval_web.held_page import HeldPage, key_digest
    from .processes import SubprocessCompleteHeld

    key = secrets.token_urlsafe(32)
    page = HeldPage(
        local_runtime(data_dir, create=False), key_digest(key), SubprocessCompleteHeld(data_dir, provider_args)
    )
    return page, key
