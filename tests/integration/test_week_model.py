"""A shop's week, model-based (tests/support/week_model.py), on both stores: random interleavings of starts,
approvals, rejects, expiries, operator writes, completions and deliveries, under the staleness rule by
re-validation; never an overbooked machine-day, never a plan applied that breaks a rule or a promise its approvers
saw, no plan staled by a change that only frees capacity or stock, exactly one application per approved plan.

Small here (``make test``); ``make week-model`` runs more and longer sequences (PO_WEEK_EXAMPLES, PO_WEEK_STEPS).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.moto_aws import AwsWorld
from tests.support.policy_model import dynamodb_worlds, sqlite_worlds
from tests.support.week_model import run_week

EXAMPLES = int(os.environ.get("PO_WEEK_EXAMPLES", "3"))
STEPS = int(os.environ.get("PO_WEEK_STEPS", "14"))


def _exercised(outcomes: dict[str, int]) -> None:
    # The sequences are seeded, so these counts are fixed: each kind of step the invariants guard happened.
    kinds = ("start:started", "start:already_pending", "approve:applied", "approve:applied_on_a_changed_shop")
    for kind in (*kinds, "approve:applied_where_the_footprint_changed", "free:complete", "free:receive"):
        assert outcomes.get(kind, 0) > 0, f"no {kind} in {outcomes}"


def test_a_week_on_sqlite(tmp_path: Path) -> None:
    tally = run_week(sqlite_worlds(tmp_path), examples=EXAMPLES, steps=STEPS)
    _exercised(tally.outcomes)


def test_a_week_on_dynamodb(aws: AwsWorld, moto_endpoint: str, tmp_path: Path) -> None:
    tally = run_week(dynamodb_worlds(moto_endpoint, tmp_path / "keys"), examples=EXAMPLES, steps=STEPS)
    _exercised(tally.outcomes)
