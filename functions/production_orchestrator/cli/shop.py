"""``shop show`` and ``shop set-inventory``: look at the shop, or record an out-of-band change."""

from __future__ import annotations

import argparse
from typing import Any

from ..agent.context import RunContext
from ..domain.errors import ValidationError
from ..domain.presentation import render_shop
from ..lifecycle.evidence import current_state
from . import inputs
from .output import EXIT_OK, PROG
from .parser import actions, command, data_dir
from .root import local_runtime


def _show(args: argparse.Namespace) -> int:
    print(render_shop(current_state(local_runtime(data_dir(args), create=False).store)))
    return EXIT_OK


def _set_inventory(args: argparse.Namespace) -> int:
    rt = local_runtime(data_dir(args), create=False)
    material, quantity = args.material, args.quantity
    known = current_state(rt.store).inventory
    # A typo must not create a material: the new digest would make every pending plan stale.
    if material not in known and not args.create:
        raise ValidationError(
            f"{material} is not a material of this shop (known: {', '.join(sorted(known)) or 'none'}): "
            "check the spelling, or pass --create to add a new material"
        )
    ctx = RunContext(store=rt.store, session_id="", checkpoint_id="", clock=rt.clock)
    try:
        state = rt.store.set_inventory(
            material, quantity, ctx.event("inventory_set", material_id=material, quantity=quantity)
        )
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    print(f"{material} set to {quantity}; revision {state.revision}, digest {state.digest()[:12]}")
    return EXIT_OK


def _material(text: str) -> str:
    return text.strip().upper()


def register(subparsers: Any) -> None:
    """``shop show``, ``shop set-inventory``."""
    shop = command(
        subparsers,
        "shop",
        summary="look at the shop or record an out-of-band change",
        description="The shop at a glance, or an inventory count made outside the agent (a delivery, a stock "
        "take). Such a change moves the shop's digest: plans proposed before it are refused as stale.",
        examples=["shop show", "shop set-inventory THREAD-RED-40 1500"],
    )
    interrupted = f"interrupted: a change is written whole or not at all; see {PROG} shop show"
    shop.set_defaults(on_interrupt=lambda _: interrupted)
    what = actions(shop, metavar="ACTION", title="actions")
    command(
        what,
        "show",
        summary="schedule, inventory and procurement at the current revision",
        description="The shop at a glance: revision, each machine's schedule per day, inventory, procurement.",
        examples=["shop show"],
        handler=_show,
    )
    inv = command(
        what,
        "set-inventory",
        summary="record a counted or delivered quantity",
        description="Record the counted quantity of a material. The material must exist unless --create is "
        "given. Plans proposed before the change are refused as STALE_DOMAIN_STATE (propose again).",
        examples=["shop set-inventory THREAD-RED-40 1500", "shop set-inventory THREAD-GREEN-40 300 --create"],
        handler=_set_inventory,
    )
    inv.add_argument("material", type=_material, metavar="MATERIAL", help="material id, e.g. THREAD-RED-40")
    inv.add_argument("quantity", type=inputs.zero_or_more, metavar="QUANTITY", help="the counted quantity (0 or more)")
    inv.add_argument("--create", action="store_true", help="add MATERIAL if the shop does not have it yet")
