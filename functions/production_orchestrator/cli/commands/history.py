"""``history``: who decided what, when and why, from the audit trail (also ``audit show``). Reads only."""

from __future__ import annotations

from typing import Any

from ..parser import GROUP_RUNS, command
from ..printers import add_history_flags, history_command

GROUP = GROUP_RUNS


def register(subparsers: Any) -> None:
    """``history``."""
    hist = command(
        subparsers,
        "history",
        summary="who decided what, when and why",
        description="Every approval request, vote, decision and outcome from the audit trail, oldest first, "
        "with approver, verdict and reason. Reads only. Also available as `audit show`.",
        examples=["history", "history --checkpoint ckpt-... --json"],
        handler=history_command,
    )
    add_history_flags(hist)
