"""The approval side of the local CLI: the run's policy and links at start, the resume of a typed or a page
decision, propose again, the local server, and the audit check.

Local approver configuration is per run, fixed in its approval record at ``start``:
``--approvers a@x,b@y`` (default: one approver, ``shop-owner``, and the local operator may decide at the
CLI), ``--requester`` (default: the OS user), ``--separation-of-duties`` (off by default locally),
``--quorum N --quorum-above QTY``. A policy that can never be satisfied is refused before the agent runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import RefusalCode, ResumeRefusedError, ValidationError
from ..domain.policy import build_policy
from ..domain.records import ProviderBinding
from ..domain.verification import ResumeRequest
from ..lifecycle.claim import ResumeResult
from ..lifecycle.evidence import load_checkpoint
from ..lifecycle.request_approval import DEFAULT_APPROVER, LOCAL_TASK_TOKEN, LinkPlan, approval_link
from ..lifecycle.review import what_changed
from ..lifecycle.runtime import Runtime
from ..lifecycle.start import StartResult
from .root import DEFAULT_LINK_BASE, local_approvals, local_mac_key, local_runtime, utc_now

if TYPE_CHECKING:
    from ..approval_web.endpoint import DecisionEndpoint


def add_start_flags(parser: argparse.ArgumentParser) -> None:
    """Who may decide on the run ``start`` begins."""
    parser.add_argument(
        "--approvers", default=None, help=f"comma-separated approver names or e-mails (default: {DEFAULT_APPROVER})"
    )
    parser.add_argument("--requester", default=None, help="who starts this run (default: the OS user)")
    parser.add_argument(
        "--separation-of-duties",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the requester may not approve their own plan (default: off locally, on in AWS)",
    )
    parser.add_argument("--quorum", type=int, default=2, help="approvals needed above --quorum-above (default 2)")
    parser.add_argument(
        "--quorum-above", type=int, default=None, metavar="QTY", help="procurement quantity that needs the quorum"
    )
    parser.add_argument(
        "--link-base", default=DEFAULT_LINK_BASE, help=f"approval link base (default {DEFAULT_LINK_BASE})"
    )


def link_plan(args: argparse.Namespace) -> LinkPlan:
    """The run's approval policy from the flags, checked before anything runs (``ValidationError``)."""
    configured = [a for a in (args.approvers or "").split(",") if a.strip()]
    policy = build_policy(
        approvers=configured or [DEFAULT_APPROVER],
        requester=str(args.requester if args.requester is not None else os.environ.get("USER") or "operator"),
        separation_of_duties=args.separation_of_duties,
        quorum=args.quorum,
        quorum_above=args.quorum_above,
        restricted=bool(configured),
    )
    return LinkPlan.fresh(policy, LOCAL_TASK_TOKEN)


def print_links(args: argparse.Namespace, result: StartResult, plan: LinkPlan) -> None:
    """``APPROVAL_ID=`` and each approver's ``APPROVER_<n>=`` / ``APPROVAL_URL_<n>=`` (stdout is the local e-mail)."""
    approval = result.approval
    assert approval is not None
    print(f"APPROVAL_ID={approval.approval_id}")
    print(f"APPROVALS_REQUIRED={approval.required}")
    for number, approver in enumerate(approval.policy.approvers, start=1):
        link = approval_link(args.link_base, approval.approval_id, plan.secrets[approver])
        if number == 1:
            print(f"APPROVAL_URL={link}")
        print(f"APPROVER_{number}={approver}")
        print(f"APPROVAL_URL_{number}={link}")


def resume(rt: Runtime, request: ResumeRequest, binding: ProviderBinding, approver: str, reason: str) -> ResumeResult:
    """``resume``: the typed decision is a vote under the run's policy, then the resume (lifecycle)."""
    from ..lifecycle.resume_approval import resume_direct

    return resume_direct(rt, request, binding, approver=approver, reason=reason)


def print_stale(args: argparse.Namespace, refusal: ResumeRefusedError) -> None:
    """After a STALE_DOMAIN_STATE refusal: what changed since the plan was proposed, and what a person can do."""
    if refusal.code is not RefusalCode.STALE_DOMAIN_STATE:
        return
    store = local_runtime(args.data_dir, create=False).store
    changes = what_changed(store, load_checkpoint(store, args.checkpoint)) or []
    print("changed since the plan was proposed:", file=sys.stderr)
    for line in changes:
        print(f"  - {line}", file=sys.stderr)
    where = f"--data-dir {args.data_dir} --checkpoint {args.checkpoint}"
    print(
        f"propose again: python -m production_orchestrator repropose {where}\n"
        f"or cancel it:  python -m production_orchestrator resume {where} --decision reject "
        f"--reviewed-hash {args.reviewed_hash} --reason TEXT",
        file=sys.stderr,
    )


def resume_approval(args: argparse.Namespace, agent_runtime: Callable[..., Runtime], binding: Any) -> Any:
    """Resume ``--checkpoint`` with the decision recorded on ``--approval`` (its receipts verified)."""
    from ..lifecycle.resume_approval import resume_decided

    rt = agent_runtime(args, create=False)
    return resume_decided(rt, binding, checkpoint_id=args.checkpoint, approval_id=args.approval)


def repropose(args: argparse.Namespace, agent_runtime: Callable[..., Runtime], binding: Any) -> int:
    """Plan again on the current shop; the run's approval is replaced (same policy, same links)."""
    from ..lifecycle.repropose import propose_again

    rt = agent_runtime(args, create=False)
    approval_id = args.approval
    if not approval_id and args.checkpoint:
        found = local_approvals(args.data_dir).approvals_for(args.checkpoint)
        approval_id = found[-1].approval_id if found else ""
    if not approval_id:
        raise ValidationError("no approval to propose again for (pass --approval or --checkpoint of a local run)")
    result = propose_again(rt, binding, approval_id)
    assert result.approval is not None
    print(f"CHECKPOINT_ID={result.checkpoint.checkpoint_id}")
    print(f"PROPOSAL_HASH={result.checkpoint.proposal_hash}")
    print(f"APPROVAL_ID={result.approval.approval_id}")
    print(f"APPROVALS_REQUIRED={result.approval.required}")
    print(f"SUPERSEDED_APPROVAL_ID={result.approval.supersedes}")
    print("the approvers' existing links now open the new plan", file=sys.stderr)
    return 0


def local_endpoint(data_dir: Path, provider_args: list[str]) -> DecisionEndpoint:
    """The local composition of the pages: SQLite stores, the key file, resumes and re-proposals as fresh
    processes."""
    from ..approval_web.endpoint import DecisionEndpoint
    from .processes import SubprocessRepropose, SubprocessResume

    rt = local_runtime(data_dir, create=False)
    assert rt.approvals is not None
    return DecisionEndpoint(
        store=rt.store,
        approvals=rt.approvals,
        callback=SubprocessResume(data_dir, provider_args),
        clock=utc_now,
        mac_key=local_mac_key(data_dir),
        reproposer=SubprocessRepropose(data_dir, provider_args),
        report_outcome=True,
    )


def serve(args: argparse.Namespace, provider_args: list[str]) -> int:
    """Serve the approval pages on 127.0.0.1 until interrupted."""
    from ..approval_web.local_server import make_server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    server = make_server(local_endpoint(args.data_dir, provider_args), args.port)
    port = int(server.server_address[1])
    print(f"SERVING=http://127.0.0.1:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def audit_verify(rt: Runtime) -> int:
    """Check the keyed audit chain and every vote's receipt; print ``AUDIT_CHAIN=intact`` or the first bad link."""
    from .aws_ops import print_chain_report

    assert rt.approvals is not None
    return print_chain_report(rt.store, rt.approvals, audit_key=rt.receipt_key, receipt_key=rt.receipt_key)


def superseded_labels(data_dir: Path, report: dict[str, Any]) -> None:
    """In a status report, say what each checkpoint's approval says when no resume has claimed it yet."""
    from ..lifecycle.status import label_by_approval

    label_by_approval(report, local_approvals(data_dir))
