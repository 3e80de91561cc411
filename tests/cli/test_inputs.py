"""Input as people type it: hashes and ids in either case, durations like 1h30m, and the inputs that must be
refused before anything is written (a quorum of 0, an empty approver name, a non-http link base, a
rejection without a reason, a material that does not exist)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from tests.support import localstore
from tests.support.clidriver import cli, expect_error
from tests.support.refusal_cases import Pending


def test_hashes_and_ids_are_accepted_in_either_case(pending: Callable[..., Pending]) -> None:
    run = pending()
    shown = cli("show", "--data-dir", str(run.data_dir), "--checkpoint", run.checkpoint_id.upper())
    assert shown.returncode == 0, shown.stderr
    done = run.cli(*run.resume_args("approve", reviewed_hash=run.proposal_hash.upper()))
    assert done.returncode == 0, done.stderr
    assert (done["DECISION"], done["PLAN_APPLIED_COUNT"]) == ("approved", "1")


def test_a_hash_that_is_not_one_is_refused_before_anything(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    expect_error(run.cli(*run.resume_args("approve", reviewed_hash=run.proposal_hash[:12])), "--reviewed-hash")
    assert localstore.fingerprint(run.data_dir) == before


def test_an_approval_window_like_1h30m(tmp_path: Path) -> None:
    data = tmp_path / "data"
    started = cli("start", "--data-dir", str(data), "--approval-window", "1h30m", "--json")
    assert started.returncode == 0, started.stderr
    values = json.loads(started.stdout)
    shown = json.loads(cli("show", "--data-dir", str(data), "--checkpoint", values["checkpoint_id"], "--json").stdout)
    created = datetime.fromisoformat(shown["checkpoint"]["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(shown["checkpoint"]["expires_at"].replace("Z", "+00:00"))
    assert (expires - created).total_seconds() == 90 * 60


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--approval-window", "1h30"), ("--approval-window", "1h30m")),
        (("--approval-window", "0m"), ("--approval-window",)),
        (("--approval-window", "60w"), ("--approval-window", "365 days")),
        (("--quorum", "0"), ("--quorum", "less than 1")),
        (("--quorum-above", "-5"), ("--quorum-above",)),
        (("--approvers", "a@x.com,,b@y.com"), ("--approvers", "empty name")),
        (("--approvers", "a@x.com,"), ("--approvers", "empty name")),
        (("--approvers", "a@x.com,A@x.com"), ("--approvers", "twice")),
        (("--link-base", "ftp://127.0.0.1/approve"), ("--link-base", "http")),
        (("--link-base", "javascript:alert(1)"), ("--link-base", "http")),
        (("--link-base", "http://user:pw@127.0.0.1/approve"), ("--link-base", "credentials")),
        (("--scenario", "nope"), ("--scenario",)),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else v,
)
def test_start_refuses_bad_input_and_creates_nothing(
    flags: tuple[str, ...], words: tuple[str, ...], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    expect_error(cli("start", "--data-dir", str(data), *flags), *words)
    assert not data.exists()


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_cli_reject_needs_a_reason(reason: str | None, pending: Callable[..., Pending]) -> None:
    run = pending()
    args = list(run.resume_args("reject"))
    cut = args.index("--reason")
    del args[cut : cut + 2]
    if reason is not None:
        args += ["--reason", reason]
    before = localstore.fingerprint(run.data_dir)
    expect_error(run.cli(*args), "rejection needs a reason", "--reason")
    assert localstore.fingerprint(run.data_dir) == before
    assert not (run.data_dir / "refusals.jsonl").exists()


def test_set_inventory_refuses_an_unknown_material_unless_created(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    typo = run.cli("shop", "set-inventory", "THREAD-RED-04", "650")
    expect_error(typo, "THREAD-RED-04", "--create", "THREAD-RED-40")
    assert localstore.fingerprint(run.data_dir) == before
    # The pending plan is not stale: nothing moved the digest.
    assert "Status: pending" in run.cli("show", "--checkpoint", run.checkpoint_id).stdout
    created = run.cli("shop", "set-inventory", "THREAD-GREEN-40", "300", "--create")
    assert created.returncode == 0, created.stderr
    assert "THREAD-GREEN-40" in run.cli("shop", "show").stdout
    assert localstore.audit_types(run.data_dir)[-1] == "inventory_set"


def test_set_inventory_takes_a_known_material_in_any_case(pending: Callable[..., Pending]) -> None:
    run = pending()
    done = run.cli("shop", "set-inventory", "thread-red-40", "650")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("THREAD-RED-40 set to 650")


@pytest.mark.parametrize("quantity", ["-1", "lots"])
def test_set_inventory_refuses_a_bad_quantity(quantity: str, pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    assert run.cli("shop", "set-inventory", "THREAD-RED-40", quantity).returncode == 2
    assert localstore.fingerprint(run.data_dir) == before
