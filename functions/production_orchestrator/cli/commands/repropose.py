"""``repropose``: after a stale refusal, run the agent again on the current shop; the run's approval is replaced
(same policy), and the approvers' existing links open the new plan.
"""

from __future__ import annotations

import argparse
from typing import Any

from ...domain.errors import ValidationError
from .. import approval_side, inputs
from ..config import PROVIDER_KEYS
from ..output import EXIT_OK, PROG, emit, say
from ..parser import GROUP_RUNS, add_json_flag, add_provider_flags, command
from ..preflight import check_provider
from ..running import ready

GROUP = GROUP_RUNS


def _repropose(args: argparse.Namespace) -> int:
    if not (args.approval or args.checkpoint):
        raise ValidationError("name the stale run: pass --approval ID or --checkpoint ID")
    where, rt, binding = ready(args, create=False)
    check_provider(binding)
    emit(approval_side.repropose(where, rt, binding, args.approval, args.checkpoint), as_json=args.json)
    say("the approvers' existing links now open the new plan")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``repropose``."""
    again = command(
        subparsers,
        "repropose",
        summary="plan again on the current shop after a stale refusal",
        description="When the shop changed since a plan was proposed (STALE_DOMAIN_STATE), run the agent "
        "again on the current shop. The new plan gets a new approval with the same policy; the approvers' "
        "existing links open it.",
        examples=["repropose --checkpoint ckpt-...", "repropose --approval appr-..."],
        handler=_repropose,
    )
    again.add_argument(
        "--approval", default=None, type=inputs.identifier, metavar="ID", help="the APPROVAL_ID start printed"
    )
    again.add_argument(
        "--checkpoint", default=None, type=inputs.identifier, metavar="ID", help="the CHECKPOINT_ID start printed"
    )
    add_json_flag(again)
    add_provider_flags(again)
    again.set_defaults(
        config_keys=PROVIDER_KEYS,
        on_interrupt=lambda _: (
            f"interrupted: the old plan stays as it was unless CHECKPOINT_ID was printed; see `{PROG} status`"
        ),
    )
