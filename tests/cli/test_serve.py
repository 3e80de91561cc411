"""``serve`` and the links ``start`` printed: it warns when they point elsewhere, and after ``make demo``
``make serve`` serves a plan to decide on."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.request import urlopen

from tests.support.clidriver import ROOT, env, interrupt, spawn, wait_for_line
from tests.support.net import free_port
from tests.support.refusal_cases import Pending


def _serve_briefly(data_dir: Path, port: int) -> str:
    """Run ``serve`` until it listens, stop it with Ctrl-C; its stderr."""
    server = spawn("serve", "--data-dir", str(data_dir), "--port", str(port))
    wait_for_line(server, "SERVING=")
    done = interrupt(server)
    assert done.returncode == 130, done.stderr
    return done.stderr


def test_serve_warns_when_the_links_point_at_another_port(pending: Callable[..., Pending]) -> None:
    linked = free_port()
    run = pending("--link-base", f"http://127.0.0.1:{linked}/approve")
    other = free_port()
    said = _serve_briefly(run.data_dir, other)
    warnings = [line for line in said.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, said
    assert f"http://127.0.0.1:{linked}/approve" in warnings[0]
    assert f"serve --port {linked}" in warnings[0]


def test_serve_on_the_links_port_says_nothing_about_them(pending: Callable[..., Pending]) -> None:
    port = free_port()
    run = pending("--link-base", f"http://127.0.0.1:{port}/approve")
    assert "warning:" not in _serve_briefly(run.data_dir, port)


def test_links_to_another_host_are_named(pending: Callable[..., Pending]) -> None:
    run = pending("--link-base", "https://approvals.example.com/approve")
    said = _serve_briefly(run.data_dir, free_port())
    assert "warning: pending approval links start with https://approvals.example.com/approve" in said


def test_make_serve_after_make_demo_opens_the_plan_left_waiting(tmp_path: Path) -> None:
    data = tmp_path / ".production-orchestrator"
    # What `make demo` runs, in a scratch working directory (the default data dir is relative to it).
    demo = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env(),
        timeout=300,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "7. Your turn" in demo.stdout and "make serve" in demo.stdout
    # the approved plan's three messages: queued once, delivered once, nothing on the second send
    assert "`outbox send` delivered 3" in demo.stdout and "it delivered 0 (3 already sent)" in demo.stdout
    link = next(line.strip() for line in demo.stdout.splitlines() if line.strip().startswith("http://127.0.0.1:8765/"))
    assert data.is_dir()
    # What `make serve` runs (the default data dir, from the same working directory), on a free port.
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "production_orchestrator", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env(),
    )
    try:
        wait_for_line(server, "SERVING=")
        with urlopen(link.replace(":8765/", f":{port}/"), timeout=30) as response:
            page = response.read().decode()
    finally:
        done = interrupt(server)
    assert response.status == 200 and "RUSH-200" in page and "Approve" in page
    assert "serve --port 8765" in done.stderr  # the links say 8765: serve tells which port they need
