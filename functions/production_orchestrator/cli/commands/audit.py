"""``audit verify`` (the hash chain of the audit trail) and ``audit show`` (the decision history).

With ``--table NAME`` ``audit verify`` checks a deployed stack's table: the keyed chain with the KMS audit key
and every vote's receipt with the receipt key (``--audit-key`` / ``--receipt-key``, else ``PO_AUDIT_KEY_ID`` /
``PO_RECEIPT_KEY_ID``; without a key its MACs are not checked and ``AUDIT_KEYED=no`` says so).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from ..aws import add_table_flag, audit_key_id, receipt_key_id, table_of, table_runtime
from ..parser import GROUP_OPERATIONS, actions, command, data_dir
from ..printers import add_history_flags, history_command, print_chain_report
from ..root import local_runtime

GROUP = GROUP_OPERATIONS
ALIASES = {"audit-verify": ("audit", "verify")}  # python -m production_orchestrator.cli.aws_ops audit-verify


def _verify(args: argparse.Namespace) -> int:
    from ...adapters.local.mac_key import KEY_FILE, FileMacKey

    table = table_of(args)
    if table is not None:
        rt = table_runtime(table, audit_key_id=audit_key_id(args), receipt_key_id=receipt_key_id(args), args=args)
        return print_chain_report(rt)
    directory = data_dir(args)
    rt = local_runtime(directory, create=False)
    # Locally one key MACs both the chain and the receipts (<data dir>/receipt.key). A check never creates it:
    # with a new key every MAC would fail and the report would blame the chain for a missing file.
    key = FileMacKey(directory / KEY_FILE, create=False)
    key.key_id  # noqa: B018 - raises KeyMissingError before anything is read
    return print_chain_report(replace(rt, audit_key=key, receipt_key=key))


def register(subparsers: Any) -> None:
    """``audit verify``, ``audit show``."""
    audit = command(
        subparsers,
        "audit",
        summary="check the audit trail's hash chain, or list decisions",
        description="Every audit event carries its position, the hash of the event before it and a MAC. `verify` "
        "names the first broken link or vote (exit 5); `show` lists the decisions (the same as `history`).",
        examples=["audit verify", "audit show --json"],
    )
    audit.set_defaults(on_interrupt=lambda _: "interrupted: nothing was changed")
    what = actions(audit, metavar="ACTION", title="actions")
    verify = command(
        what,
        "verify",
        summary="check the keyed hash chain and every vote's receipt; name the first bad event",
        description="Re-hash the audit trail and check every link's MAC, the head's and every vote's receipt: "
        "prints AUDIT_CHAIN=intact, or AUDIT_CHAIN=broken with BROKEN_AT=<n>, BROKEN_SEQ=<seq> and what broke "
        "(exit 5). Reads only.",
        examples=["audit verify", "audit verify --data-dir /srv/shop", "--table NAME audit verify --audit-key ID"],
        handler=_verify,
    )
    add_table_flag(verify, keys=("audit", "receipt"))
    show = command(
        what,
        "show",
        summary="who decided what, when and why (as `history`)",
        description="Every approval request, vote, decision and outcome from the audit trail, oldest first.",
        examples=["audit show", "audit show --checkpoint ckpt-..."],
        handler=history_command,
    )
    add_history_flags(show)
