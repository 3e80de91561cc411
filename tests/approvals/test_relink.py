"""``approvals relink``: a new link for one approver, the old one dead at once, audited without a secret; every
refusal has a code and writes nothing."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.approvals.test_policy import approval_rows, endpoint, link
from tests.support.clidriver import cli
from tests.support.localstore import audit_types, fingerprint
from tests.support.net import APPROVERS


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def test_relink_opens_the_plan_with_the_new_link_and_the_old_one_stops(started: Any) -> None:
    data_dir, run = started("--approvers", APPROVERS)
    # Case and spaces do not make another person: the relink is ben's. --print-link: on stdout, not the outbox
    # (tests/contract/test_approval_mail.py follows the outbox path).
    done = cli("approvals", "relink", "--data-dir", str(data_dir), "--approval", run["APPROVAL_ID"],
               "--approver", "  BEN@Example.com ", "--print-link")  # fmt: skip
    assert done.returncode == 0, done.stderr
    new = done.values["APPROVAL_URL"]
    assert done.values["APPROVER"] == "ben@example.com"
    assert new.startswith("http://127.0.0.1:8765/approve?") and new != run["APPROVAL_URL_2"]
    made, _ = endpoint(data_dir)
    fresh = made.show(_query(new))
    assert fresh.status == 200 and "You are</dt><dd>ben@example.com" in fresh.body
    assert made.show(link(run, 2)).label == "not_usable"  # the old link: the neutral page
    assert made.show(link(run, 3)).label == "confirmation_shown"  # cy's link is untouched
    assert audit_types(data_dir)[-1] == "approval_relinked"
    secret = _query(new)["s"]
    history = cli("history", "--data-dir", str(data_dir))
    assert "relinked" in history.stdout and "ben@example.com" in history.stdout
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path  # only its hash is kept, nowhere the secret


def test_each_refusal_has_a_code_and_writes_nothing(started: Any) -> None:
    data_dir, run = started("--approvers", APPROVERS)
    approval = run["APPROVAL_ID"]
    before = (fingerprint(data_dir), approval_rows(data_dir))
    cases = {
        "NOT_FOUND": ("--approval", "appr-" + "0" * 32, "--approver", "ben@example.com"),
        "NOT_AN_APPROVER": ("--approval", approval, "--approver", "mallory@example.com"),
    }
    for code, flags in cases.items():
        done = cli("approvals", "relink", "--data-dir", str(data_dir), *flags)
        assert done.returncode == 2 and f"error: {code}:" in done.stderr, (code, done.stderr)
        assert "APPROVAL_URL" not in done.stdout
        assert (fingerprint(data_dir), approval_rows(data_dir)) == before, code


def test_a_closed_approval_gets_no_new_link(started: Any) -> None:
    data_dir, run = started("--approvers", APPROVERS)
    made, _ = endpoint(data_dir)
    form = {"decision": "reject", "reviewed_hash": run["PROPOSAL_HASH"], "reason": "no"}
    assert made.post(link(run, 2), form).status == 200
    before = (fingerprint(data_dir), approval_rows(data_dir))
    done = cli("approvals", "relink", "--data-dir", str(data_dir), "--approval", run["APPROVAL_ID"],
               "--approver", "cy@example.com")  # fmt: skip
    assert done.returncode == 2 and "error: APPROVAL_CLOSED:" in done.stderr, done.stderr
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
