"""Outbox delivery through the real SMTP transport to a loopback sink that can refuse at every step.

    deliver (clock injected) -> SmtpTransport (smtplib) -> 127.0.0.1 sink: greeting, EHLO, [STARTTLS, AUTH],
    MAIL, RCPT, DATA, the message, QUIT

The reply that ends DATA decides: 2xx sent, 4xx queued for the next send, 5xx failed with the server's text.
A refusal of the session (greeting, EHLO, STARTTLS, login, MAIL FROM) or a server that is not there counts
no attempt: the messages stay queued however many rounds it lasts. A QUIT refused after an accepted message
changes nothing. The shop, outbox and clock are the in-memory ones; the wire is real.
"""

from __future__ import annotations

import email
import email.policy

import pytest

from production_orchestrator.adapters.local.mail_transports import SmtpTransport
from production_orchestrator.domain.messages.outbox import OutboxMessage
from production_orchestrator.services.outbox.deliver import MAX_ATTEMPTS, Deliver, deliver
from production_orchestrator.services.outbox.requeue import Requeue, requeue
from tests.support.memory_world import MemoryWorld
from tests.support.smtp_sink import DROP, SmtpSink, smtp_sink
from tests.support.tls_certs import client_context, server_context

SENDER = "orders@shop.example"


@pytest.fixture
def world() -> MemoryWorld:
    """A rush-order plan approved and applied: three messages queued (customer, operator, supplier)."""
    world = MemoryWorld()
    started = world.start()
    assert world.resume(started, True).outcome == "applied"
    return world


def _transport(sink: SmtpSink, **options: object) -> SmtpTransport:
    return SmtpTransport(sink.host, sink.port, SENDER, timeout=5.0, **options)  # type: ignore[arg-type]


def _stored(world: MemoryWorld) -> list[OutboxMessage]:
    return world.store.outbox_messages()


def _states(world: MemoryWorld) -> list[tuple[str, int]]:
    return [(m.status, m.attempts) for m in _stored(world)]


def test_every_message_goes_out_once_with_the_servers_queue_id(world: MemoryWorld) -> None:
    with smtp_sink() as sink:
        report = deliver(world.runtime(transport=_transport(sink)), Deliver())
    assert report.counts()["sent"] == 3 and report.complete
    assert [m.transport_id for m in _stored(world)] == [f"smtp:{r.queue_id}" for r in sink.received]
    assert sink.commands.count("QUIT") == 3  # each connection ended politely


# (step, reply) -> (status of the first message, its attempts, error text kept, other messages tried too)
SESSION_REFUSALS = [
    ("connect", "554 5.3.2 no service for you"),
    ("connect", DROP),
    ("EHLO", "550 5.7.1 go away"),
    ("EHLO", DROP),
    ("MAIL", "553 5.7.1 sender not allowed"),
    ("MAIL", "451 4.3.0 sender check later"),
    ("MAIL", DROP),
]


@pytest.mark.parametrize(("step", "reply"), SESSION_REFUSALS)
def test_a_refused_session_counts_no_attempt_and_stops_the_round(world: MemoryWorld, step: str, reply: str) -> None:
    with smtp_sink() as sink:
        sink.replies[step] = reply
        report = deliver(world.runtime(transport=_transport(sink)), Deliver())
        assert sink.received == []
        # One connection, not one per message: the next message would get the same answer.
        assert sink.connections == 1
        assert report.counts() == {"sent": 0, "already_sent": 0, "pending": 3, "failed": 0, "refused": 0, "void": 0}
        assert _states(world) == [("queued", 0)] * 3
        if reply != DROP:
            assert reply in _stored(world)[0].last_error
        del sink.replies[step]
        again = deliver(world.runtime(transport=_transport(sink)), Deliver())
    assert again.counts()["sent"] == 3 and len(sink.received) == 3


@pytest.mark.parametrize(
    ("step", "reply", "status"),
    [
        ("RCPT", "550 5.1.1 no such mailbox", "failed"),
        ("RCPT", "452 4.2.2 mailbox full", "queued"),
        ("DATA", "554 5.7.1 no DATA for you", "failed"),
        ("DATA", "451 4.3.0 not now", "queued"),
        ("after DATA", "554 5.7.1 message refused: spam score", "failed"),
        ("after DATA", "451 4.7.1 greylisted, try again later", "queued"),
        ("after DATA", "552 5.3.4 message size exceeds limit", "failed"),
    ],
)
def test_the_servers_answer_to_the_message_decides(world: MemoryWorld, step: str, reply: str, status: str) -> None:
    with smtp_sink() as sink:
        sink.replies[step] = reply
        report = deliver(world.runtime(transport=_transport(sink)), Deliver())
        assert sink.received == []
    assert report.counts()["sent"] == 0
    assert _states(world) == [(status, 1)] * 3  # a server saw each message: each attempt counts
    assert all(reply in m.last_error for m in _stored(world))  # the server's own words, for the person
    events = [e.event_type for e in world.store.audit_events()]
    assert events.count("message_failed") == (3 if status == "failed" else 0)
    assert "message_sent" not in events


def test_a_connection_dropped_after_data_leaves_the_message_queued(world: MemoryWorld) -> None:
    with smtp_sink() as sink:
        sink.replies["after DATA"] = DROP
        report = deliver(world.runtime(transport=_transport(sink)), Deliver())
    assert report.counts()["pending"] == 3 and {s for s, _ in _states(world)} == {"queued"}


@pytest.mark.parametrize("reply", ["421 4.4.2 closing connection", "500 5.5.1 what?", DROP])
def test_a_failed_quit_after_an_accepted_message_changes_nothing(world: MemoryWorld, reply: str) -> None:
    with smtp_sink() as sink:
        sink.replies["QUIT"] = reply
        first = deliver(world.runtime(transport=_transport(sink)), Deliver())
        second = deliver(world.runtime(transport=_transport(sink)), Deliver())
    assert first.counts()["sent"] == 3 and second.counts()["already_sent"] == 3
    assert len(sink.received) == 3  # delivered once each, never again
    assert _states(world) == [("sent", 1)] * 3


def test_a_server_down_for_many_runs_never_uses_up_a_message(world: MemoryWorld) -> None:
    with smtp_sink() as sink:
        address = (sink.host, sink.port)  # closed when the block ends: nothing listens there any more
    down = SmtpTransport(*address, SENDER, timeout=5.0)
    for _ in range(MAX_ATTEMPTS * 2):
        report = deliver(world.runtime(transport=down), Deliver())
        assert report.counts()["pending"] == 3
        world.clock.advance(hours=1)
    assert _states(world) == [("queued", 0)] * 3
    assert "unavailable" in _stored(world)[0].last_error
    with smtp_sink() as sink:
        assert deliver(world.runtime(transport=_transport(sink)), Deliver()).counts()["sent"] == 3


def test_a_message_refused_too_often_fails_and_a_person_can_queue_it_again(world: MemoryWorld) -> None:
    with smtp_sink() as sink:
        sink.replies["after DATA"] = "451 4.7.1 try again later"
        for _ in range(MAX_ATTEMPTS):
            deliver(world.runtime(transport=_transport(sink)), Deliver())
        assert _states(world) == [("failed", MAX_ATTEMPTS)] * 3
        retried = requeue(world.runtime(), Requeue(by="cli:owner", all_failed=True))
        assert len(retried.requeued) == 3 and not retried.refused
        assert [(m.status, m.attempts_since_retry) for m in _stored(world)] == [("queued", 0)] * 3
        del sink.replies["after DATA"]
        report = deliver(world.runtime(transport=_transport(sink)), Deliver())
    assert report.counts()["sent"] == 3 and len(sink.received) == 3
    requeued = [e for e in world.store.audit_events() if e.event_type == "message_requeued"]
    assert len(requeued) == 3 and {e.detail["by"] for e in requeued} == {"cli:owner"}
    assert "451 4.7.1 try again later" in str(requeued[0].detail["last_error"])


def test_credentials_go_only_over_starttls(world: MemoryWorld) -> None:
    with smtp_sink(tls=server_context()) as sink:
        transport = _transport(
            sink, security="starttls", username="shop", password="s3cret", tls_context=client_context()
        )
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["sent"] == 3
    assert sink.logins == [("shop", "s3cret", True)] * 3
    assert all(r.over_tls for r in sink.received)
    assert sink.commands[:4] == ["EHLO", "STARTTLS", "EHLO", "AUTH"]


def test_smtps_delivers_over_tls_from_the_first_byte(world: MemoryWorld) -> None:
    with smtp_sink(tls=server_context(), implicit_tls=True) as sink:
        transport = _transport(sink, security="smtps", username="shop", password="s3cret", tls_context=client_context())
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["sent"] == 3 and sink.logins == [("shop", "s3cret", True)] * 3


@pytest.mark.parametrize("reply", ["454 4.7.0 TLS not available", "502 5.5.1 not today"])
def test_a_refused_starttls_never_sends_the_password_in_clear(world: MemoryWorld, reply: str) -> None:
    with smtp_sink(tls=server_context()) as sink:
        sink.replies["STARTTLS"] = reply
        transport = _transport(
            sink, security="starttls", username="shop", password="s3cret", tls_context=client_context()
        )
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["pending"] == 3 and sink.logins == [] and "AUTH" not in sink.commands
    assert _states(world) == [("queued", 0)] * 3


def test_a_server_without_starttls_is_not_used_when_tls_was_asked_for(world: MemoryWorld) -> None:
    with smtp_sink() as sink:  # offers no STARTTLS
        transport = _transport(sink, security="starttls", username="shop", password="s3cret")
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["pending"] == 3 and sink.logins == [] and "MAIL" not in sink.commands
    assert "does not offer STARTTLS" in _stored(world)[0].last_error


def test_a_refused_login_counts_no_attempt(world: MemoryWorld) -> None:
    with smtp_sink(tls=server_context()) as sink:
        sink.replies["AUTH"] = "535 5.7.8 authentication failed"
        transport = _transport(
            sink, security="starttls", username="shop", password="wrong", tls_context=client_context()
        )
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["pending"] == 3 and _states(world) == [("queued", 0)] * 3
    assert "535 5.7.8" in _stored(world)[0].last_error


def test_credentials_without_tls_are_refused_by_the_transport() -> None:
    with pytest.raises(ValueError, match="need TLS"):
        SmtpTransport("127.0.0.1", 25, SENDER, username="shop", password="s3cret")


def test_the_message_on_the_wire_has_its_headers_in_the_header(world: MemoryWorld) -> None:
    with smtp_sink() as sink:
        deliver(world.runtime(transport=_transport(sink)), Deliver())
    parsed = email.message_from_bytes(sink.received[0].data, policy=email.policy.default)
    stored = _stored(world)[0]
    assert (parsed["From"], parsed["To"], parsed["Subject"]) == (SENDER, stored.to, stored.subject)
    assert parsed["Message-ID"] == stored.message_id
    assert parsed.get_content().replace("\r\n", "\n").strip() == stored.body.strip()


def test_a_certificate_that_does_not_verify_gets_no_password(world: MemoryWorld) -> None:
    with smtp_sink(tls=server_context()) as sink:  # its CA is not among the system's
        transport = _transport(sink, security="starttls", username="shop", password="s3cret")
        report = deliver(world.runtime(transport=transport), Deliver())
    assert report.counts()["pending"] == 3 and sink.logins == [] and sink.received == []
    assert _states(world) == [("queued", 0)] * 3 and "SSLCertVerificationError" in _stored(world)[0].last_error
