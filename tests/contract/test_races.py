"""Two resumes of one checkpoint started together: exactly one applies, the other is ALREADY_DECIDED."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support import localstore
from tests.support.clidriver import finish, spawn
from tests.support.refusal_cases import Pending

TRIALS = 20


@pytest.mark.parametrize("trial", range(TRIALS))
def test_racing_resumes_apply_once(trial: int, fresh: Callable[..., Pending]) -> None:
    run = fresh()
    args = ("--data-dir", str(run.data_dir))
    decision = "approve" if trial % 4 else "reject"
    resume = run.resume_args(decision)
    procs = [spawn(resume[0], *args, *resume[1:]) for _ in range(2)]
    results = [finish(p) for p in procs]
    codes = sorted(r.returncode for r in results)
    assert codes == [0, 3], [(r.stdout, r.stderr) for r in results]
    loser = next(r for r in results if r.returncode == 3)
    assert loser.stdout.strip() == "REFUSED=ALREADY_DECIDED"
    assert localstore.application_count(run.data_dir) == (1 if decision == "approve" else 0)
    assert localstore.audit_types(run.data_dir).count("decision_recorded") == 1
