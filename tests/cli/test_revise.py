"""``revise`` through the installed console script: keep an order, get version 2 that does not move it, approve
it once and apply exactly it; version 1 refused after it; bad guidance refused with nothing written."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.support.localstore import audit_types, fingerprint
from tests.support.refusal_cases import Pending

TODAY = "2026-08-12"


def test_keep_gives_version_2_that_applies_once_and_version_1_is_refused(pending: Callable[..., Pending]) -> None:
    run = pending()
    revised = run.cli("revise", "--checkpoint", run.checkpoint_id, "--keep", "STANDARD-100", "--approver", "shop-owner")
    assert revised.returncode == 0, revised.stderr
    assert revised["VERSION"] == "2" and revised["SUPERSEDES"] == run.proposal_hash
    assert revised["CHECKPOINT_ID"] != run.checkpoint_id and len(revised["PROPOSAL_HASH"]) == 64
    assert revised["ON_TIME"] == "false"  # the kept order leaves no on-time plan: said, not hidden
    assert audit_types(run.data_dir)[-1] == "plan_revised"
    shown = json.loads(run.cli("show", "--checkpoint", revised["CHECKPOINT_ID"], "--json").stdout)
    assert [c["order_id"] for c in shown["proposal"]["schedule_changes"]] == ["RUSH-200"]
    assert shown["version"]["version"] == 2 and "STANDARD-100 is no longer moved" in shown["version"]["version_changes"]
    status = run.cli("status")
    assert "version 2 by shop-owner" in status.stdout and "version 2 replaces it" in status.stdout

    before = fingerprint(run.data_dir)
    old = run.cli(*run.resume_args())
    assert old.returncode == 3 and old["REFUSED"] == "SUPERSEDED" and revised["APPROVAL_ID"] in old.stderr
    assert fingerprint(run.data_dir) == before

    v2 = Pending(run.data_dir, revised["CHECKPOINT_ID"], revised["PROPOSAL_HASH"], "", "")
    applied = v2.cli("resume", "--checkpoint", v2.checkpoint_id, "--decision", "approve", "--reviewed-hash",
                     v2.proposal_hash, "--approver", "shop-owner")  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    assert applied["OUTCOME"] == "applied" and applied["PLAN_APPLIED_COUNT"] == "1"
    shop = json.loads(run.cli("shop", "show", "--json").stdout)
    standard = next(o for o in shop["orders"] if o["id"] == "STANDARD-100")
    assert standard["schedule"] == [{"machine": "EMB-01", "day": TODAY, "minutes": 360}]
    again = v2.cli("revise", "--checkpoint", v2.checkpoint_id, "--note", "late")
    assert again.returncode == 3 and again["REFUSED"] == "ALREADY_DECIDED"
    history = run.cli("history").stdout
    assert "revised" in history and "keep STANDARD-100 where it is" in history


@pytest.mark.parametrize(
    ("flags", "code"),
    [
        (("--keep", "NOPE-1"), "UNKNOWN_ORDER"),
        (("--overtime", f"EMB-99:{TODAY}:60"), "UNKNOWN_MACHINE"),
        (("--overtime", "EMB-01:2030-01-01:60"), "UNKNOWN_DAY"),
        (("--overtime", f"EMB-01:{TODAY}:1000"), "MINUTES_OVER_DAY"),
        ((), "NO_GUIDANCE"),
    ],
)
def test_bad_guidance_is_refused_with_nothing_written(
    pending: Callable[..., Pending], flags: tuple[str, ...], code: str
) -> None:
    run = pending()
    before = fingerprint(run.data_dir)
    refused = run.cli("revise", "--checkpoint", run.checkpoint_id, *flags, "--json")
    assert refused.returncode == 3, refused.stderr
    assert json.loads(refused.stdout)["refused"] == code
    assert fingerprint(run.data_dir) == before


def test_malformed_overtime_is_a_usage_error(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = fingerprint(run.data_dir)
    for bad in ("EMB-01", "EMB-01:2026-02-30:60", f"EMB-01:{TODAY}:0", f"EMB-01:{TODAY}:2000"):
        refused = run.cli("revise", "--checkpoint", run.checkpoint_id, "--overtime", bad)
        assert refused.returncode == 2, (bad, refused.stderr)
    assert fingerprint(run.data_dir) == before


def test_a_non_approver_may_not_revise(pending: Callable[..., Pending]) -> None:
    run = pending("--approvers", "ana@example.com,ben@example.com", "--print-links")
    before = fingerprint(run.data_dir)
    refused = run.cli("revise", "--checkpoint", run.checkpoint_id, "--note", "x", "--approver", "eve@example.com")
    assert refused.returncode == 3 and refused["REFUSED"] == "UNAUTHORIZED_APPROVER"
    assert fingerprint(run.data_dir) == before
    ok = run.cli("revise", "--checkpoint", run.checkpoint_id, "--overtime", f"EMB-01:{TODAY}:120",
                 "--approver", "Ana@Example.com")  # fmt: skip
    assert ok.returncode == 0 and ok["ON_TIME"] == "true", ok.stderr


def test_the_last_version_is_refused_with_nothing_written(pending: Callable[..., Pending]) -> None:
    run = pending("--max-versions", "2")
    revised = run.cli("revise", "--checkpoint", run.checkpoint_id, "--keep", "STANDARD-100")
    assert revised.returncode == 0, revised.stderr
    before = fingerprint(run.data_dir)
    again = run.cli("revise", "--checkpoint", revised["CHECKPOINT_ID"], "--note", "once more", "--json")
    assert again.returncode == 3, again.stderr
    assert json.loads(again.stdout)["refused"] == "VERSION_LIMIT"
    assert fingerprint(run.data_dir) == before
    for bad in ("0", "21", "two"):  # a bound outside 1-20 is a usage error before anything starts
        assert run.cli("start", "--max-versions", bad).returncode == 2
