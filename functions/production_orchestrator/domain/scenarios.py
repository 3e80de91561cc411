"""The three reference scenarios of DESIGN.md section 3, as shop files and customer e-mails.

Each lives in ``scenario_shops/`` (package data, so it ships in the Lambda asset): ``<name>.json`` is a
shop file in the format ``shop import`` reads, ``<name>.eml`` the e-mail that brings in the target order.
All plan on 2026-08-12.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from .errors import ValidationError
from .intake.customer_message import read_message
from .intake.facts import read_facts, resolve_request
from .limits import SCENARIO_TITLES
from .shop.file_format import read_shop
from .shop.model import Order, ShopState, parse_day

PLANNING_DAY = "2026-08-12"
TODAY = PLANNING_DAY
TOMORROW = "2026-08-13"
_FILES = "scenario_shops"
TITLES = SCENARIO_TITLES


@dataclass(frozen=True)
class Scenario:
    """A shop file plus the customer e-mail that brings in its target order, planned on one day."""

    name: str
    title: str
    state: ShopState
    target_order_id: str
    customer_email: str
    planning_day: str = PLANNING_DAY

    def target_order(self) -> Order:
        """The order its e-mail brings in, as the rule-based reader and the shared resolver take it in."""
        message = read_message(self.customer_email)
        facts = read_facts(message, self.state.products, message.sent_day or parse_day(self.planning_day))
        return resolve_request(message, facts, self.state, self.planning_day)

    def taken_in(self) -> ShopState:
        """The scenario's shop with its target order taken in (unscheduled)."""
        return self.state.with_order(self.target_order())


def _read(name: str, suffix: str) -> str:
    return (resources.files(__package__) / _FILES / f"{name}{suffix}").read_text(encoding="utf-8")


def _load(name: str) -> Scenario:
    title, target = TITLES[name]
    return Scenario(
        name=name,
        title=title,
        state=read_shop(json.loads(_read(name, ".json"))),
        target_order_id=target,
        customer_email=_read(name, ".eml"),
    )


SCENARIOS: dict[str, Scenario] = {name: _load(name) for name in TITLES}


def scenario(name: str) -> Scenario:
    """The reference scenario called ``name``; a clear error for anything else."""
    try:
        return SCENARIOS[name]
    except KeyError:
        known = ", ".join(sorted(SCENARIOS))
        raise ValidationError(f"unknown scenario {name!r} (known: {known})") from None
