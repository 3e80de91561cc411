"""``approvals relink``: a new link for one approver of an open approval (the old one stops working);
``approvals wake``: on a deployed stack, wake every decided approval whose workflow was never told.

Locally the link goes where ``start`` sent the first: for an e-mail approver a request queued in the outbox (in
the relink's own transaction; ``outbox send`` delivers it), else stdout (``APPROVAL_URL=``). Nothing keeps the
secret: the approval holds its hash and nonce (the key rebuilds it at send), the audit event names the approval
and the approver. With ``--table NAME`` (and ``--topic-arn``, ``--link-base``) the relink runs on a deployed
stack's table and the new link goes out through the approval topic (SNS), as the first did.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...domain.errors import ValidationError
from .. import inputs
from ..aws import add_table_flag, required_table, table_of, table_runtime, write_runtime
from ..output import EXIT_OK, PROG, emit, say
from ..parser import GROUP_MESSAGES, actions, command, data_dir
from ..root import (
    DEFAULT_LINK_BASE,
    link_bases,
    local_approvals,
    local_runtime,
    record_link_base,
)

if TYPE_CHECKING:  # the services load when a command runs, not when the parser is built
    from ...domain.ports import ApprovalMessage

GROUP = GROUP_MESSAGES
# The operator commands' old spellings (python -m production_orchestrator.cli.aws_ops relink | wake-decided).
ALIASES = {"relink": ("approvals", "relink"), "wake-decided": ("approvals", "wake")}


class StdoutNotifier:
    """The local e-mail: the link on stdout as ``APPROVAL_URL=`` (nothing else keeps it)."""

    def __init__(self) -> None:
        self.sent: list[ApprovalMessage] = []

    def notify(self, message: ApprovalMessage) -> None:
        """Hold the message for the command to print once the relink is recorded."""
        self.sent.append(message)


def _link_base(where: Path, approval_id: str, given: str | None) -> str:
    """The base the approval's first links used (recorded by ``start``), unless one is given."""
    from ...services.evidence import current_approval

    if given:
        return given
    bases = link_bases(where)
    current = current_approval(local_approvals(where), approval_id)
    for candidate in (approval_id, current.approval_id if current else "", current.supersedes if current else ""):
        if candidate in bases:
            return bases[candidate]
    return DEFAULT_LINK_BASE


def _relink(args: argparse.Namespace) -> int:
    from ...services.asking.relink import Relink, relink

    if table_of(args) is not None:
        return _relink_aws(args)
    where = data_dir(args)
    rt = local_runtime(where, create=False)
    assert rt.approvals is not None
    base = _link_base(where, args.approval, args.link_base)
    notifier = StdoutNotifier()
    # The data dir's runtime mints links with its key: an e-mail approver's new link can wait in the outbox.
    done = relink(
        replace(rt, notifier=notifier),
        Relink(approval_id=args.approval, approver=args.approver, link_base_url=base, outbox=not args.print_link),
    )
    record_link_base(where, done.approval_id, base)
    say(f"a new link for {done.approver}; the link they had before no longer opens the plan")
    values = {"approval_id": done.approval_id, "approver": done.approver, "checkpoint_id": done.checkpoint_id}
    if done.queued:
        values["approval_sent"] = "outbox"
        say(f"it waits in the outbox: `{PROG} outbox send --smtp HOST:PORT` delivers it (or --to-dir DIR)")
    else:
        values["approval_url"] = notifier.sent[-1].link
    emit(values, as_json=args.json)
    return EXIT_OK


def _relink_aws(args: argparse.Namespace) -> int:
    """``approvals relink`` against the deployed table: the new link goes out through the approval topic."""
    from ...services.asking.relink import Relink, relink

    table = required_table(args, "approvals relink on AWS")
    if not args.topic_arn or not args.link_base:
        raise ValidationError("approvals relink --table needs --topic-arn ARN and --link-base URL (the stack's)")
    # An operator write like the shop's: its audit event MACed by the stack's operator function (the audit key's
    # GenerateMac is the functions' alone); the new link is random and goes out by SNS, as the first did.
    rt = write_runtime(args, table, "notifier", topic_arn=args.topic_arn)
    done = relink(rt, Relink(approval_id=args.approval, approver=args.approver, link_base_url=args.link_base))
    print(f"APPROVAL_ID={done.approval_id}")
    print(f"APPROVER={done.approver}")
    print("SENT=sns")  # the link itself only in the message
    return EXIT_OK


def _wake(args: argparse.Namespace) -> int:
    """The reconciler: wake every decided approval whose workflow was never told; print what happened."""
    from ...services.deciding.wake import reconcile

    outcomes = reconcile(table_runtime(required_table(args, "approvals wake"), "callback", args=args))
    for approval_id, outcome in sorted(outcomes.items()):
        print(f"WAKE {approval_id}={outcome}")
    print(f"WOKEN={sum(1 for o in outcomes.values() if o == 'woken')}")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``approvals relink``."""
    group = command(
        subparsers,
        "approvals",
        summary="operator actions on an approval (relink; on AWS also wake)",
        description="Operator actions on an approval that is still open: a new link for one approver (relink); on "
        "a deployed stack also the reconciler that wakes decided approvals whose workflow was never told (wake).",
        examples=["approvals relink --approval appr-... --approver ben@example.com"],
    )
    sub = actions(group, metavar="ACTION", title="actions")
    again = command(
        sub,
        "relink",
        summary="a new link for one approver; their old link stops working",
        description="Issue a new approval link to one approver of an open approval and revoke the one they had "
        "(lost, forwarded, or in a mailbox someone else reads). Audited as approval_relinked. Refused, with "
        "nothing written, when the approval is closed or expired or does not ask that approver. The new link "
        "goes where the first one went: the outbox for an e-mail address (sent by `outbox send`), else stdout.",
        examples=[
            "approvals relink --approval appr-... --approver ben@example.com",
            f"approvals relink --approval appr-... --approver ben@example.com --json  # then {PROG} serve",
            "--table NAME approvals relink --topic-arn ARN --link-base URL --approval appr-... --approver EMAIL",
        ],
        handler=_relink,
    )
    again.add_argument("--approval", required=True, type=inputs.identifier, metavar="ID", help="the APPROVAL_ID")
    again.add_argument("--approver", required=True, metavar="EMAIL", help="who gets the new link")
    again.add_argument(
        "--link-base",
        type=inputs.link_base,
        default=None,
        metavar="URL",
        help="what the link starts with (default: what start used for this approval)",
    )
    again.add_argument(
        "--print-link",
        action="store_true",
        help="print the new link even for an e-mail address, instead of queueing it for `outbox send`",
    )
    again.add_argument("--json", action="store_true", help="print one JSON object instead of KEY=value lines")
    add_table_flag(again)
    again.add_argument(
        "--topic-arn",
        default=None,
        metavar="ARN",
        help="with --table: the approval topic (ApprovalTopicArn)",
    )
    wake = command(
        sub,
        "wake",
        summary="on AWS: wake every decided approval whose workflow was never told",
        description="The reconciler of a deployed stack: every approval that was decided but whose workflow "
        "never heard of it (the wake-up was lost) is woken again, once; a closed task token is recorded and "
        "skipped. Prints WAKE <approval>=<outcome> lines and WOKEN=<n>. Locally `serve` resumes each decision "
        "itself, so this needs --table.",
        examples=["approvals wake --table NAME"],
        handler=_wake,
    )
    add_table_flag(wake, aws_only=True)
