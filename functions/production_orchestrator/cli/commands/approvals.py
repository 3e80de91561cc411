"""``approvals relink``: a new link for one approver of an open approval (the old one stops working).

Locally the link goes where ``start`` sent the first: for an e-mail approver a request queued in the outbox (in
the relink's own transaction; ``outbox send`` delivers it), else stdout (``APPROVAL_URL=``). Nothing keeps the
secret: the approval holds its hash and nonce (the key rebuilds it at send), the audit event names the approval
and the approver.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...domain.approval.links import LinkMint
from ...domain.ports import ApprovalMessage
from ...services.asking.relink import relink
from ...services.evidence import current_approval
from .. import inputs
from ..output import EXIT_OK, PROG, emit, say
from ..parser import actions, command, data_dir
from ..root import (
    DEFAULT_LINK_BASE,
    link_bases,
    local_approvals,
    local_mac_key,
    local_runtime,
    record_link_base,
    utc_now,
)


class StdoutNotifier:
    """The local e-mail: the link on stdout as ``APPROVAL_URL=`` (nothing else keeps it)."""

    def __init__(self) -> None:
        self.sent: list[ApprovalMessage] = []

    def notify(self, message: ApprovalMessage) -> None:
        """Hold the message for the command to print once the relink is recorded."""
        self.sent.append(message)


def _link_base(where: Path, approval_id: str, given: str | None) -> str:
    """The base the approval's first links used (recorded by ``start``), unless one is given."""
    if given:
        return given
    bases = link_bases(where)
    current = current_approval(local_approvals(where), approval_id)
    for candidate in (approval_id, current.approval_id if current else "", current.supersedes if current else ""):
        if candidate in bases:
            return bases[candidate]
    return DEFAULT_LINK_BASE


def _relink(args: argparse.Namespace) -> int:
    where = data_dir(args)
    rt = local_runtime(where, create=False)
    assert rt.approvals is not None
    base = _link_base(where, args.approval, args.link_base)
    notifier = StdoutNotifier()
    done = relink(
        rt.store,
        rt.approvals,
        notifier,
        approval_id=args.approval,
        approver=args.approver,
        link_base_url=base,
        now=utc_now(),
        mint=LinkMint(local_mac_key(where)),
        outbox=not args.print_link,
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


def register(subparsers: Any) -> None:
    """``approvals relink``."""
    group = command(
        subparsers,
        "approvals",
        summary="operator actions on an approval (relink)",
        description="Operator actions on an approval that is still open.",
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
