"""The approval policy, model-based, on SQLite (tests/support/policy_model.py): random sequences of starts,
page posts, CLI and workflow resumes, "propose again", shop changes, clock jumps, expiries, crashes and two
votes at once, each step checked against a reference model of the rules and the invariants after it.

Small here (``make test``); ``make torture`` runs it on DynamoDB-on-moto and ``make evidence`` writes
evidence/policy.json from a larger run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings

from tests.support.policy_model import Tally, machine_for, sqlite_worlds

TALLY = Tally()
ROOT = Path(tempfile.mkdtemp(prefix="po-policy-model-"))
PolicyOnSqlite = machine_for(sqlite_worlds(ROOT), TALLY)
PolicyOnSqlite.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=16,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=False,
)
TestPolicyOnSqlite = PolicyOnSqlite.TestCase
