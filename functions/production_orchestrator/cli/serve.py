"""``serve``: the approval pages of one data dir on 127.0.0.1, until Ctrl-C.

Before it listens it checks what would otherwise fail later, in front of an approver: the shop exists, the
model the resumes will use can be reached, the port is free; and it warns when the links ``start``
printed point at another address than the one it answers on.
"""

from __future__ import annotations

import argparse
import errno
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..approval_web.local_server import APPROVE_PATH, LOOPBACK, make_server
from ..domain.errors import ValidationError
from ..domain.records import parse_utc
from ..lifecycle.review import current_approval
from . import inputs
from .approvals import local_endpoint
from .output import EXIT_INTERRUPTED, EXIT_OK, PROG, say
from .parser import add_provider_flags, command, data_dir
from .preflight import check_provider
from .root import link_bases, local_approvals, utc_now
from .runs import binding_of, provider_argv

DEFAULT_PORT = 8765
_LOCAL_HOSTS = (LOOPBACK, "localhost")


def _answers_on(base: str, port: int) -> bool:
    parts = urlsplit(base)
    return (
        parts.scheme == "http"
        and parts.hostname in _LOCAL_HOSTS
        and (parts.port or 80) == port
        and parts.path == APPROVE_PATH
    )


def pending_link_bases(data_dir: Path) -> set[str]:
    """The link bases of the approvals still open in ``data_dir`` (as ``start`` recorded them)."""
    approvals = local_approvals(data_dir)
    now = utc_now()
    bases: set[str] = set()
    for approval_id, base in link_bases(data_dir).items():
        current = current_approval(approvals, approval_id)
        if current is not None and current.status == "pending" and now < parse_utc(current.expires_at):
            bases.add(base)
    return bases


def warn_on_link_mismatch(data_dir: Path, port: int) -> None:
    """A warning for each link base of a pending approval that this server does not answer."""
    for base in sorted(pending_link_bases(data_dir)):
        if _answers_on(base, port):
            continue
        parts = urlsplit(base)
        if parts.scheme == "http" and parts.hostname in _LOCAL_HOSTS and parts.path == APPROVE_PATH:
            fix = f"run `{PROG} serve --port {parts.port or 80}` instead"
        else:
            fix = "serve them where they point, or start the run again with a matching --link-base"
        say(
            f"warning: pending approval links start with {base} but this server answers on "
            f"http://{LOOPBACK}:{port}{APPROVE_PATH}: {fix}"
        )


def _listen(endpoint: Any, port: int) -> Any:
    try:
        return make_server(endpoint, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValidationError(
                f"port {port} on {LOOPBACK} is in use (another serve?): stop it, or pass --port N"
            ) from None
        if exc.errno == errno.EACCES:
            raise ValidationError(f"port {port} needs privileges here: pass --port with a port above 1023") from None
        raise ValidationError(f"cannot listen on {LOOPBACK}:{port}: {exc.strerror}") from None


def _serve(args: argparse.Namespace) -> int:
    where = data_dir(args)
    binding = binding_of(args)
    endpoint = local_endpoint(where, provider_argv(args))  # no shop: one error line, before the port is taken
    check_provider(binding)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    server = _listen(endpoint, args.port)
    port = int(server.server_address[1])
    try:
        warn_on_link_mismatch(where, port)
        say(f"serving the approval pages of {where} on http://{LOOPBACK}:{port}/ (Ctrl-C stops)")
        print(f"SERVING=http://{LOOPBACK}:{port}/", flush=True)  # last: a script may act on it at once
        server.serve_forever()
    except KeyboardInterrupt:
        say("interrupted: the server stopped; recorded decisions stand and pending approvals stay pending")
        return EXIT_INTERRUPTED
    finally:
        server.server_close()
    return EXIT_OK


def register(subparsers: Any) -> None:
    """``serve``."""
    serve = command(
        subparsers,
        "serve",
        summary="the approval pages on 127.0.0.1",
        description="Serve the approval pages of the data dir on 127.0.0.1 only. Opening a link (GET, HEAD) "
        "changes nothing; Approve or Reject on the page records the decision, and the resume then runs in a "
        "fresh process with the provider flags given here (they must match start's).",
        examples=["serve", "serve --port 9000"],
        handler=_serve,
    )
    serve.add_argument(
        "--port", type=inputs.port, default=DEFAULT_PORT, metavar="PORT", help="TCP port on 127.0.0.1 (0: any free)"
    )
    add_provider_flags(serve)
