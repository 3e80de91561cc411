"""``serve``: the approval pages of one data dir on 127.0.0.1, until Ctrl-C.

Before it listens it checks what would otherwise fail later, in front of an approver: the shop exists, the
model the resumes will use can be reached, the port is free; and it warns when the links ``start``
printed point at another address than the one it answers on.
"""

from __future__ import annotations

import argparse
import errno
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...approval_web.paths import APPROVE_PATH, HELD_PATH, LOOPBACK
from ...domain.errors import ValidationError
from .. import inputs
from ..approval_side import local_endpoint, local_held_page
from ..config import PROVIDER_KEYS
from ..output import EXIT_INTERRUPTED, EXIT_OK, PROG, say
from ..parser import GROUP_MESSAGES, add_provider_flags, command, data_dir
from ..preflight import check_provider
from ..reminders import add_reminder_flags, every_minute, schedule_of
from ..root import link_bases, local_approvals, utc_now
from ..running import binding_of, provider_argv

DEFAULT_PORT = 8765
PASS_JOIN_SECONDS = 30
_LOCAL_HOSTS = (LOOPBACK, "localhost")

GROUP = GROUP_MESSAGES


def _answers_on(base: str, port: int, where: Listening | None = None) -> bool:
    parts = urlsplit(base)
    where = where or Listening()
    scheme = "https" if where.tls else "http"
    return (
        parts.scheme == scheme
        and parts.hostname in where.names()
        and (parts.port or (443 if where.tls else 80)) == port
        and parts.path == APPROVE_PATH
    )


@dataclass(frozen=True)
class Listening:
    """Where ``serve`` answers: the bound address, TLS or not, and the extra names its Host check accepts."""

    bind: str = LOOPBACK
    tls: bool = False
    host_names: tuple[str, ...] = ()

    def names(self) -> set[str]:
        """Host names a link may use to reach this server."""
        local = set(_LOCAL_HOSTS) if self.bind == LOOPBACK else set()
        return {self.bind, *self.host_names, *local}

    def url(self, port: int) -> str:
        """The server's own URL."""
        host = f"[{self.bind}]" if ":" in self.bind else self.bind
        return f"{'https' if self.tls else 'http'}://{host}:{port}/"


def pending_link_bases(data_dir: Path) -> set[str]:
    from ...domain.records import parse_utc
    from ...services.evidence import current_approval

    """The link bases of the approvals still open in ``data_dir`` (as ``start`` recorded them)."""
    approvals = local_approvals(data_dir)
    now = utc_now()
    bases: set[str] = set()
    for approval_id, base in link_bases(data_dir).items():
        current = current_approval(approvals, approval_id)
        if current is not None and current.status == "pending" and now < parse_utc(current.expires_at):
            bases.add(base)
    return bases


def warn_on_link_mismatch(data_dir: Path, port: int, where: Listening | None = None) -> None:
    """A warning for each link base of a pending approval that this server does not answer."""
    where = where or Listening()
    for base in sorted(pending_link_bases(data_dir)):
        if _answers_on(base, port, where):
            continue
        parts = urlsplit(base)
        if parts.scheme == "http" and parts.hostname in _LOCAL_HOSTS and parts.path == APPROVE_PATH:
            fix = f"run `{PROG} serve --port {parts.port or 80}` instead"
        else:
            fix = "serve them where they point, or start the run again with a matching --link-base"
        say(
            f"warning: pending approval links start with {base} but this server answers on "
            f"{where.url(port).rstrip('/')}{APPROVE_PATH}: {fix}"
        )


def listening(args: argparse.Namespace) -> Listening:
    """Where ``serve`` may answer, from ``--bind``, ``--tls-cert``/``--tls-key`` and ``--host-name``; a
    ValidationError (before anything listens) for a wildcard, a LAN address without TLS, or half a TLS pair."""
    from ...approval_web.local_server import check_bind

    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValidationError("--tls-cert and --tls-key go together: pass both, or neither")
    tls = args.tls_cert is not None
    try:
        bind = check_bind(args.bind, tls=tls)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    return Listening(bind=bind, tls=tls, host_names=tuple(n.lower() for n in args.host_name))


def _listen(endpoint: Any, port: int, args: argparse.Namespace, where: Listening, held: Any = None) -> Any:
    from ...approval_web.local_server import make_server, tls_context

    try:
        context = tls_context(str(args.tls_cert), str(args.tls_key)) if where.tls else None
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    try:
        return make_server(endpoint, port, bind=where.bind, tls=context, host_names=where.host_names, held=held)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValidationError(
                f"port {port} on {where.bind} is in use (another serve?): stop it, or pass --port N"
            ) from None
        if exc.errno == errno.EACCES:
            raise ValidationError(f"port {port} needs privileges here: pass --port with a port above 1023") from None
        raise ValidationError(f"cannot listen on {where.bind}:{port}: {exc.strerror}") from None


def _serve(args: argparse.Namespace) -> int:
    where = data_dir(args)
    schedule = schedule_of(args)
    place = listening(args)  # a LAN address without TLS stops here, before anything is read or bound
    binding = binding_of(args)
    endpoint = local_endpoint(where, provider_argv(args))  # no shop: one error line, before the port is taken
    check_provider(binding)
    # The operator's held-request page: on loopback only, behind a key minted now (approval_web/held_page.py).
    held, key = local_held_page(where, provider_argv(args)) if place.bind == LOOPBACK else (None, "")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    server = _listen(endpoint, args.port, args, place, held)
    port = int(server.server_address[1])
    stop = threading.Event()
    reminders: threading.Thread | None = None
    try:
        warn_on_link_mismatch(where, port, place)
        reminders = every_minute(where, schedule, stop)  # reminders and escalation while the pages are served
        say(f"serving the approval pages of {where} on {place.url(port)} (Ctrl-C stops)")
        if held is not None:
            # The one place the key appears: this terminal (as start prints APPROVAL_URL=); never a log line.
            say("held requests (needs facts, possible duplicates), for you only: open OPERATOR_URL")
            print(f"OPERATOR_URL={place.url(port).rstrip('/')}{HELD_PATH}?k={key}", flush=True)
        print(f"SERVING={place.url(port)}", flush=True)  # last: a script may act on it at once
        server.serve_forever()
    except KeyboardInterrupt:
        say("interrupted: the server stopped; recorded decisions stand and pending approvals stay pending")
        return EXIT_INTERRUPTED
    finally:
        stop.set()
        server.server_close()
        if reminders is not None:
            # A pass cut off at exit would die inside the model library's native code (the process aborts):
            # let the one in progress finish first; the next one never starts.
            reminders.join(timeout=PASS_JOIN_SECONDS)
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``serve``."""
    serve = command(
        subparsers,
        "serve",
        summary="the approval pages on 127.0.0.1 (or a LAN address, over TLS)",
        description="Serve the approval pages of the data dir on 127.0.0.1 (or, with --bind and a TLS "
        "certificate, on one LAN address for a phone on the same network). Opening a link (GET, HEAD) "
        "changes nothing; Approve or Reject on the page records the decision, and the resume then runs in a "
        "fresh process with the provider flags given here (they must match start's). On loopback it also "
        "serves the operator's page of held requests (OPERATOR_URL=, behind a key minted at each start): a form "
        "there completes a request that waits as needs facts, as `request complete` does.",
        examples=[
            "serve",
            "serve --port 9000",
            "serve --bind 192.168.1.20 --tls-cert shop.pem --tls-key shop.key --port 8443",
        ],
        handler=_serve,
    )
    serve.add_argument("--port", type=inputs.port, default=DEFAULT_PORT, metavar="PORT", help="TCP port (0: any free)")
    lan = serve.add_argument_group("on a LAN (a phone on the shop's Wi-Fi)")
    lan.add_argument(
        "--bind",
        default=LOOPBACK,
        metavar="ADDR",
        help="the one IP address to listen on; anything but loopback needs --tls-cert and --tls-key",
    )
    lan.add_argument("--tls-cert", type=Path, default=None, metavar="PEM", help="the server certificate (chain)")
    lan.add_argument("--tls-key", type=Path, default=None, metavar="PEM", help="its private key")
    lan.add_argument(
        "--host-name",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the links use for this address (e.g. shop-laptop.local); the Host check accepts it",
    )
    add_provider_flags(serve)
    serve.set_defaults(config_keys=PROVIDER_KEYS)
    add_reminder_flags(serve)
