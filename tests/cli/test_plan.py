"""``plan``: the plan the agent would propose, printed, nothing written; on the data dir's shop or a shop file."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from production_orchestrator.domain.scenarios import SCENARIOS
from production_orchestrator.domain.shop.file_format import write_shop
from tests.support import localstore
from tests.support.clidriver import cli, command, env, expect_error
from tests.support.refusal_cases import Pending

RUSH = SCENARIOS["rush-order"]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    shop, email = tmp_path / "shop.json", tmp_path / "customer.eml"
    shop.write_text(json.dumps(write_shop(RUSH.state)))
    email.write_text(RUSH.customer_email)
    return shop, email


def test_plan_prints_what_start_proposed_and_writes_nothing(pending: Callable[..., Pending], tmp_path: Path) -> None:
    run = pending()
    _, email = _files(tmp_path)
    before = localstore.fingerprint(run.data_dir)
    shown = cli("plan", "--data-dir", str(run.data_dir), "--request", str(email), "--as-of", RUSH.planning_day)
    assert shown.returncode == 0, shown.stderr
    assert shown["PROPOSAL_HASH"] == run.proposal_hash and shown["PLANNED_BY"] == "solver"
    assert "nothing was written" in shown.stdout and "Move STANDARD-100" in shown.stdout
    as_json = cli(
        "plan", "--data-dir", str(run.data_dir), "--request", str(email), "--as-of", RUSH.planning_day, "--json"
    )
    show = cli("show", "--data-dir", str(run.data_dir), "--checkpoint", run.checkpoint_id, "--json")
    assert as_json.returncode == 0 and show.returncode == 0, as_json.stderr + show.stderr
    planned, reviewed = json.loads(as_json.stdout), json.loads(show.stdout)
    assert planned["proposal"] == reviewed["proposal"] and planned["proposal_hash"] == reviewed["proposal_hash"]
    assert localstore.fingerprint(run.data_dir) == before


def test_plan_on_a_shop_file_needs_no_data_dir(tmp_path: Path) -> None:
    shop, email = _files(tmp_path)
    data_dir = tmp_path / "never-made"
    args = ("plan", "--data-dir", str(data_dir), "--shop", str(shop), "--as-of", RUSH.planning_day)
    piped = subprocess.run(
        command(*args, "--request", "-"),
        input=email.read_text(),
        capture_output=True,
        text=True,
        env=env(),
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert "PLANNED_BY=solver" in piped.stdout and not data_dir.exists()
    greedy = cli(*args, "--request", str(email), "--solver-nodes", "0")
    assert greedy.returncode == 0 and greedy["PLANNED_BY"] == "greedy", greedy.stderr
    assert "Move STANDARD-100 from EMB-01 on 2026-08-12 (6h) to EMB-01 on 2026-08-13 (6h)" in greedy.stdout


def test_a_request_that_cannot_be_planned_is_refused(tmp_path: Path) -> None:
    shop, _ = _files(tmp_path)
    vague = tmp_path / "vague.eml"
    vague.write_text("From: a@b.example\nSubject: hello\n\nCan you make something nice for us?\n")
    refused = cli("plan", "--request", str(vague), "--shop", str(shop), "--as-of", RUSH.planning_day)
    expect_error(refused, "cannot be planned")
    bad_day = cli("plan", "--request", str(vague), "--shop", str(shop), "--as-of", "12/08/2026")
    expect_error(bad_day, "--as-of")
    missing = cli("plan", "--request", str(tmp_path / "nope.eml"), "--shop", str(shop))
    expect_error(missing, "cannot read the request")
    both = cli("plan", "--request", "-", "--shop", "-")
    expect_error(both, "standard input")
    no_shop = cli("plan", "--request", str(vague), "--data-dir", str(tmp_path / "empty"))
    expect_error(no_shop, "no shop in")
    assert not (tmp_path / "empty").exists()
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad_file = cli("plan", "--request", str(vague), "--shop", str(broken))  # listed by JSON path, as shop import does
    assert bad_file.returncode == 2 and "$: invalid JSON" in bad_file.stderr and "Traceback" not in bad_file.stderr
