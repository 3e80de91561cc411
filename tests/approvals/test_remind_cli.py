"""``remind`` from cron: nothing before a point, each reminder once, backups joining once with a working link;
bad flags refused with nothing written. ``--now`` stands in for the clock."""

from __future__ import annotations

import email
import email.policy
import json
from datetime import timedelta
from typing import Any

from production_orchestrator.domain.records import parse_utc, utc_iso
from tests.approvals.test_policy import approval_rows, endpoint
from tests.support.clidriver import cli
from tests.support.localstore import audit_types, fingerprint
from tests.support.net import APPROVERS


def _created(data_dir: Any) -> Any:
    (raw,) = (json.loads(r[0]) for r in approval_rows(data_dir))
    return parse_utc(raw["created_at"])


def _remind(data_dir: Any, at: Any, *flags: str) -> Any:
    return cli("remind", "--data-dir", str(data_dir), "--now", utc_iso(at), *flags)


def test_cron_every_minute_sends_each_reminder_once(started: Any) -> None:
    data_dir, _ = started("--approvers", APPROVERS, "--approval-window", "72h")
    created = _created(data_dir)
    early = _remind(data_dir, created + timedelta(hours=35))
    assert early.returncode == 0 and early.values["REMINDED"] == "0", early.stderr
    due = _remind(data_dir, created + timedelta(hours=36, minutes=1))
    assert due.values["REMINDED"] == "3", due.stdout
    # The approvers have addresses: their reminders wait in the outbox (with their link), none on stdout.
    assert "MESSAGE_1_TO" not in due.values and "approve?" not in due.stdout
    queued = cli("outbox", "list", "--data-dir", str(data_dir)).stdout
    assert queued.count("reminder (halfway)") == 3 and "s=" not in queued
    before = fingerprint(data_dir)
    again = _remind(data_dir, created + timedelta(hours=36, minutes=2))
    assert again.values["REMINDED"] == "0" and fingerprint(data_dir) == before
    assert audit_types(data_dir).count("approval_reminded") == 3
    assert "reminded" in cli("history", "--data-dir", str(data_dir)).stdout


def test_backups_join_once_and_their_link_opens_the_plan(started: Any) -> None:
    data_dir, _ = started("--approvers", APPROVERS, "--approval-window", "72h")
    created = _created(data_dir)
    flags = ("--escalate-after", "12h", "--backup-approvers", "Dan@Example.com")
    assert _remind(data_dir, created + timedelta(hours=11), *flags).values["ESCALATED"] == "0"
    done = _remind(data_dir, created + timedelta(hours=12), *flags)
    assert (done.values["ESCALATED"], done.values["LINKS_SENT"]) == ("1", "1"), done.stdout
    out = data_dir.parent / "mail"
    assert cli("outbox", "send", "--data-dir", str(data_dir), "--to-dir", str(out)).returncode == 0
    mails = [email.message_from_bytes(f.read_bytes(), policy=email.policy.default) for f in out.glob("approval-*")]
    (dan,) = [str(m.get_body().get_content()) for m in mails if m["To"] == "dan@example.com"]  # type: ignore[union-attr]
    link = next(line for line in dan.splitlines() if line.startswith("http://127.0.0.1:8765/approve?"))
    made, _ = endpoint(data_dir)
    query = dict(part.split("=", 1) for part in link.split("?", 1)[1].split("&"))
    page = made.show(query)
    assert page.status == 200 and "You are</dt><dd>dan@example.com" in page.body
    again = _remind(data_dir, created + timedelta(hours=13), *flags)
    assert (again.values["ESCALATED"], again.values["LINKS_SENT"]) == ("0", "0")
    assert audit_types(data_dir).count("approval_escalated") == 1


def test_bad_reminder_flags_are_refused_with_nothing_written(started: Any) -> None:
    data_dir, _ = started("--approvers", APPROVERS)
    before = (fingerprint(data_dir), approval_rows(data_dir))
    for flags, words in (
        (("--escalate-after", "12h"), "go together"),
        (("--remind-at", "soon"), "--remind-at"),
        (("--now", "yesterday"), "yesterday"),
    ):
        done = cli("remind", "--data-dir", str(data_dir), *flags)
        assert done.returncode == 2 and words in done.stderr, (flags, done.stderr)
    assert (fingerprint(data_dir), approval_rows(data_dir)) == before
