"""The approval side of the local CLI: links at start, the local server, resume of a page decision,
propose again, audit verification, and the policy checks ``resume`` makes.

Local approver configuration is per run, fixed in its approval record at ``start``:
``--approvers a@x,b@y`` (default: one approver, ``shop-owner``), ``--requester`` (default: the OS user),
``--separation-of-duties`` (off by default locally), ``--quorum N --quorum-above QTY``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.approvals import ApprovalRecord
from ..domain.errors import RefusalCode, ResumeRefusedError, ValidationError
from ..domain.ports import ApprovalMessage, ShopStore
from ..domain.receipts import make_receipt
from ..domain.records import Checkpoint, Decision, parse_utc
from ..lifecycle.authorize import authorize_direct, receipt_event
from ..lifecycle.evidence import load_checkpoint, review
from ..lifecycle.repropose import supersede
from ..lifecycle.request_approval import request_approval
from ..lifecycle.review import current_approval, what_changed
from ..lifecycle.runtime import Runtime
from ..lifecycle.start import StartResult
from .root import DEFAULT_LINK_BASE, local_approvals, local_mac_key, local_runtime, utc_now

if TYPE_CHECKING:
    from ..approval_web.endpoint import DecisionEndpoint

DEFAULT_APPROVER = "shop-owner"
LOCAL_TASK_TOKEN = "local"  # locally nothing waits on a token: the decision endpoint runs the resume itself


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


def _requester(args: argparse.Namespace) -> str:
    return str(args.requester or os.environ.get("USER") or "operator")


@dataclass
class _Collect:
    """An ApprovalNotifier that keeps the messages for ``start`` to print (the links are the local 'e-mail')."""

    messages: list[ApprovalMessage] = field(default_factory=list)

    def notify(self, message: ApprovalMessage) -> None:
        self.messages.append(message)


def request_links(args: argparse.Namespace, rt: Runtime, result: StartResult) -> None:
    """Create the run's approval and print ``APPROVAL_ID=`` and each approver's ``APPROVAL_URL_<n>=``."""
    configured = [a.strip() for a in (args.approvers or "").split(",") if a.strip()]
    notifier = _Collect()
    requested = request_approval(
        rt.store,
        local_approvals(args.data_dir),
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
    print(f"APPROVAL_ID={requested.approval_id}")
    for number, message in enumerate(notifier.messages, start=1):
        if number == 1:
            print(f"APPROVAL_URL={message.link}")
        print(f"APPROVER_{number}={message.approver}")
        print(f"APPROVAL_URL_{number}={message.link}")


def authorize(args: argparse.Namespace, approver: str, approved: bool) -> None:
    """``resume --approver`` meets the run's policy; raises ``ResumeRefusedError(UNAUTHORIZED_APPROVER)``."""
    authorize_direct(local_approvals(args.data_dir), args.checkpoint, approver, approved)


def print_stale(args: argparse.Namespace, refusal: ResumeRefusedError) -> None:
    """After a STALE_DOMAIN_STATE refusal: what changed since the plan was proposed, and how to propose again."""
    if refusal.code is not RefusalCode.STALE_DOMAIN_STATE:
        return
    store = local_runtime(args.data_dir, create=False).store
    changes = what_changed(store, load_checkpoint(store, args.checkpoint)) or []
    print("changed since the plan was proposed:", file=sys.stderr)
    for line in changes:
        print(f"  - {line}", file=sys.stderr)
    print(
        f"propose again: python -m production_orchestrator repropose --data-dir {args.data_dir} "
        f"--checkpoint {args.checkpoint}",
        file=sys.stderr,
    )


def record_cli_receipt(args: argparse.Namespace, store: ShopStore, checkpoint: Checkpoint, decision: Decision) -> None:
    """A decision typed at the CLI gets its receipt too, kept in the audit trail."""
    receipt = make_receipt(checkpoint, decision, local_mac_key(args.data_dir))
    store.append_audit(receipt_event(checkpoint, receipt, at=utc_now()))


def resume_approval(args: argparse.Namespace, agent_runtime: Callable[..., Runtime], binding: Any) -> Any:
    """Resume ``--checkpoint`` with the decision recorded on ``--approval`` (its receipts verified)."""
    from ..lifecycle.resume_approval import resume_decided

    rt = agent_runtime(args, create=False)
    return resume_decided(
        rt,
        local_approvals(args.data_dir),
        binding,
        checkpoint_id=args.checkpoint,
        approval_id=args.approval,
        mac_key=local_mac_key(args.data_dir),
    )


def repropose(args: argparse.Namespace, agent_runtime: Callable[..., Runtime], binding: Any) -> int:
    """Plan again on the current shop; the run's approval is replaced (same approvers, same links)."""
    from ..lifecycle.start import PlanRequest, start_run

    approvals = local_approvals(args.data_dir)
    old: ApprovalRecord | None = None
    if args.approval:
        old = current_approval(approvals, args.approval)
    elif args.checkpoint:
        found = approvals.approvals_for(args.checkpoint)
        old = current_approval(approvals, found[-1].approval_id) if found else None
    if old is None:
        raise ValidationError("no approval to propose again for (pass --approval or --checkpoint of a local run)")
    rt = agent_runtime(args, create=False)
    checkpoint, proposal = review(rt.store, old.checkpoint_id)
    if what_changed(rt.store, checkpoint) is None:
        raise ValidationError(f"the plan of {checkpoint.checkpoint_id} is not stale: approve or reject it instead")
    if rt.store.get_decision(checkpoint.checkpoint_id) is not None:
        raise ValidationError(f"checkpoint {checkpoint.checkpoint_id} was already decided")
    window = max(parse_utc(checkpoint.expires_at) - parse_utc(checkpoint.created_at), timedelta(seconds=1))
    result = start_run(rt, PlanRequest.again(checkpoint, proposal), binding, window)
    new = supersede(rt.store, approvals, old, result.checkpoint, rt.clock())
    print(f"CHECKPOINT_ID={result.checkpoint.checkpoint_id}")
    print(f"PROPOSAL_HASH={result.checkpoint.proposal_hash}")
    print(f"APPROVAL_ID={new.approval_id}")
    print(f"SUPERSEDED_APPROVAL_ID={old.approval_id}")
    print("the approvers' existing links now open the new plan", file=sys.stderr)
    return 0


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


def audit_verify(store: ShopStore) -> int:
    """Check the audit hash chain; print ``AUDIT_CHAIN=intact`` or the first broken link. Exit 0 or 5."""
    from .aws_ops import print_chain_report

    return print_chain_report(store)


def superseded_labels(data_dir: Path, report: dict[str, Any]) -> None:
    """In a status report, mark pending checkpoints whose approval was replaced by "propose again"."""
    approvals = local_approvals(data_dir)
    for row in report["approvals"]:
        if row["status"] != "pending":
            continue
        found = approvals.approvals_for(row["checkpoint_id"])
        if found and all(a.superseded_by for a in found):
            row["status"] = "superseded"
