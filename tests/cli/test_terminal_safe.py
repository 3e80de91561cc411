"""Every string from an e-mail that reaches a terminal is shown escaped, by every command: the CLI routes stdout
and stderr through one escaping stream (cli/output.py), so a customer name that would set the window title or
clear the screen is printed as ``\\x1b]0;...``, in ``shop show``'s pending requests as everywhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.clidriver import cli
from tests.support.provider_runs import EXAMPLES

HOSTILE_NAME = "Evil\x1b]0;owned\x07\x1b[2J Corp\u202e"
REQUEST = (
    "From: =?utf-8?q?Evil=1B]0;owned=07=1B[2J_Corp?= <evil@corp.example>\n"
    "Date: Tue, 1 Dec 2026 09:00:00 +0100\nSubject: totes\n\n"
    "Customer: " + HOSTILE_NAME + "\nPlease make 60 navy tote bags (TOTE-NAVY) by 2026-12-18.\n"
)


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    run = cli("--data-dir", str(data), "shop", "import", str(EXAMPLES / "print-shop.json"))
    assert run.returncode == 0, run.stderr
    return data


def test_every_command_shows_an_emails_control_characters_escaped(shop_dir: Path, tmp_path: Path) -> None:
    request = tmp_path / "evil.eml"
    request.write_text(REQUEST)
    d = ("--data-dir", str(shop_dir))
    started = cli(*d, "start", "--request", str(request), "--as-of", "2026-12-01")
    assert started.returncode == 0, started.stderr
    checkpoint = started["CHECKPOINT_ID"]
    commands = [
        ("shop", "show"),
        ("shop", "show", "--json"),
        ("status",),
        ("status", "--json"),
        ("show", "--checkpoint", checkpoint),
        ("history",),
        ("order", "list"),
        ("audit", "verify"),
        ("audit", "list"),
        ("outbox", "list"),
        ("plan", "--request", str(request), "--as-of", "2026-12-01"),
        ("start", "--request", str(request), "--as-of", "2026-12-01"),  # refused: already pending
    ]
    shown = ""
    for command in commands:
        run = cli(*d, *command)
        for char in "\x1b\x07\u202e":
            assert char not in run.stdout and char not in run.stderr, (command, run.stdout, run.stderr)
        shown += run.stdout + run.stderr
    assert "Evil\\x1b]0;owned\\x07\\x1b[2J Corp\\u202e" in shown
