"""``outbox list|send|retry`` handle every kind of message, the kind named: a plan's (customer, operator,
supplier) and an approval's (request, reminder). A sent request edited back to queued in the data dir is named
by ``outbox send`` and ``audit verify``, never sent again, and the refusal writes nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from production_orchestrator.domain.messages.outbox import OutboxMessage
from tests.contract.test_approval_mail import _send, _start, _stored
from tests.support.clidriver import cli
from tests.support.smtp_sink import smtp_sink

ANA, BEN = "ana@example.com", "ben@example.com"


def _listed(data_dir: Path) -> list[dict[str, object]]:
    listed = cli("outbox", "list", "--json", "--data-dir", str(data_dir))
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout))


def _edit(data_dir: Path, to: str, **fields: str) -> str:
    with sqlite3.connect(data_dir / "shop.sqlite3") as conn:
        rows = [(k, OutboxMessage.model_validate_json(r)) for k, r in conn.execute("SELECT msg_key, raw FROM outbox")]
        key, message = next((k, m) for k, m in rows if m.to == to)
        conn.execute(
            "UPDATE outbox SET raw = ? WHERE msg_key = ?", (message.model_copy(update=fields).model_dump_json(), key)
        )
    return key


def test_list_names_each_approval_messages_kind_and_retry_queues_a_failed_one_again(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    rows = _listed(data_dir)
    assert [(r["kind"], r["to"], r["status"]) for r in rows] == [("request", ANA, "queued"), ("request", BEN, "queued")]
    assert all(str(r["id"]).startswith(str(r["approval_id"]) + "#request#") for r in rows)
    text = cli("outbox", "list", "--data-dir", str(data_dir)).stdout
    assert text.count("queued  request ") == 2 and f"for approval {rows[0]['approval_id']}" in text
    with smtp_sink() as sink:
        sink.refuse[BEN] = "550 5.1.1 no such mailbox"
        sent = _send(data_dir, sink)
        assert sent.returncode == 6 and (sent["APPROVAL_MAIL_SENT"], sent["APPROVAL_MAIL_FAILED"]) == ("1", "1")
        failed = next(r for r in _listed(data_dir) if r["status"] == "failed")
        assert f"outbox retry --id {failed['id']}" in cli("outbox", "list", "--data-dir", str(data_dir)).stdout
        retried = cli("outbox", "retry", "--data-dir", str(data_dir), "--id", str(failed["id"]))
        assert retried.returncode == 0 and retried["REQUEUED"] == "1", retried.stderr
        assert "[approval request] to ben@example.com" in retried.stdout
        del sink.refuse[BEN]
        again = _send(data_dir, sink)
    assert again.returncode == 0 and again["APPROVAL_MAIL_SENT"] == "1", again.stderr
    assert [r["status"] for r in _listed(data_dir)] == ["sent", "sent"]
    assert cli("audit", "verify", "--data-dir", str(data_dir))["AUDIT_CHAIN"] == "intact"


def test_a_sent_request_edited_back_to_queued_is_named_and_never_sent_again(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    with smtp_sink() as sink:
        assert _send(data_dir, sink)["APPROVAL_MAIL_SENT"] == "2"
        key = _edit(data_dir, ANA, status="queued", transport_id="", sent_at="")
        before = _stored(data_dir)
        sent = _send(data_dir, sink)
        assert len(sink.received) == 2  # nothing sent again
    assert sent.returncode == 6 and sent["APPROVAL_MAIL_REFUSED"] == "1" and "MESSAGE_TAMPERED" in sent.stderr
    assert key in sent.stderr and "records it sent" in sent.stderr
    assert _stored(data_dir) == before  # nothing written
    verified = cli("audit", "verify", "--data-dir", str(data_dir))
    assert verified.returncode == 5 and verified["AUDIT_CHAIN"] == "broken" and key in verified.stderr
    assert _stored(data_dir) == before


def test_retry_refuses_an_id_that_is_not_a_message_and_writes_nothing(tmp_path: Path) -> None:
    data_dir, _ = _start(tmp_path)
    before = _stored(data_dir)
    unknown = cli("outbox", "retry", "--data-dir", str(data_dir), "--id", "appr-" + "0" * 32 + "#request#" + "1" * 32)
    assert unknown.returncode == 2 and "MESSAGE_NOT_FOUND" in unknown.stderr
    queued = _listed(data_dir)[0]["id"]
    not_failed = cli("outbox", "retry", "--data-dir", str(data_dir), "--id", str(queued))
    assert not_failed.returncode == 2 and "MESSAGE_NOT_RETRYABLE" in not_failed.stderr
    assert _stored(data_dir) == before
