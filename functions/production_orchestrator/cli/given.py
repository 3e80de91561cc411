"""``start --product CODE --quantity N --due DATE --customer NAME``: facts the person running the start gives.

Each fills or replaces what the customer's e-mail says (a missing quantity, an unclear due date); the proposal
records them with who gave them (``--requester``, default the OS user), so the approver sees which facts came
from a person rather than from the e-mail. They are checked here, before anything is read or written.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import TYPE_CHECKING

from . import inputs

if TYPE_CHECKING:
    from ..domain.planning.proposal import GivenFacts

_MAX_QUANTITY = 10_000_000
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _product(text: str) -> str:
    from ..domain.shop.model import ID_PATTERN

    code = text.strip().upper()
    if not ID_PATTERN.fullmatch(code):
        raise argparse.ArgumentTypeError(f"{text!r} is not a product code (letters, digits and dashes)")
    return code


def _quantity(text: str) -> int:
    value = inputs.at_least_one(text)
    if value > _MAX_QUANTITY:
        raise argparse.ArgumentTypeError(f"{value} is more than {_MAX_QUANTITY}")
    return value


def _due(text: str) -> str:
    from ..domain.shop.model import parse_day

    try:
        return parse_day(text.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day (YYYY-MM-DD)") from None


def _customer(text: str) -> str:
    name = " ".join(text.split())
    if not name or len(name) > 120 or _CONTROL.search(text.replace("\t", " ")):
        raise argparse.ArgumentTypeError("a customer name is 1 to 120 characters on one line, no control characters")
    return name


def add_given_flags(start: argparse.ArgumentParser, *, customer: bool = True) -> None:
    """``--product``, ``--quantity``, ``--due`` and (unless not ``customer``) ``--customer``."""
    group = start.add_argument_group("facts you give (fill or replace what the e-mail says)")
    group.add_argument("--product", type=_product, default=None, metavar="CODE", help="the product code")
    group.add_argument("--quantity", type=_quantity, default=None, metavar="N", help="how many units")
    group.add_argument("--due", type=_due, default=None, metavar="YYYY-MM-DD", help="the day it is needed by")
    if customer:
        group.add_argument("--customer", type=_customer, default=None, metavar="NAME", help="the customer's name")


def given_facts(args: argparse.Namespace) -> GivenFacts | None:
    """The facts the flags give, with who gave them; None when no flag was used."""
    from ..domain.planning.proposal import GivenFacts

    values = {name: getattr(args, name, None) for name in ("product", "quantity", "due", "customer")}
    if all(value is None for value in values.values()):
        return None
    requester = getattr(args, "requester", None)
    given_by = " ".join(str(requester if requester is not None else os.environ.get("USER") or "operator").split())
    return GivenFacts(given_by=given_by or "operator", **values)
