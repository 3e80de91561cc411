"""Expected failures: exit 2, one ``error:`` line that says what to do, no traceback, and nothing written.

Also the two ways a session ends early: the reader of stdout goes away (``| head``) and Ctrl-C.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import localstore
from tests.support.clidriver import cli, command, env, expect_error, interrupt, spawn, wait_for_line
from tests.support.fake_bedrock import FakeBedrock
from tests.support.fake_ollama import FakeOllama
from tests.support.net import free_port
from tests.support.provider_runs import DUMMY_AWS_ENV, LOOPBACK_REGION
from tests.support.refusal_cases import Pending

# No credential anywhere botocore looks: no keys, no files, no instance metadata, no container endpoint.
NO_AWS = {
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
}
AWS_KEYS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def _everything(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` with its bytes: equal before and after means nothing was written."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("show", "--checkpoint", "ckpt-" + "0" * 32),
        ("history",),
        ("shop", "show"),
        ("audit", "verify"),
        ("serve", "--port", "0"),
        ("resume", "--checkpoint", "ckpt-" + "0" * 32, "--decision", "approve", "--reviewed-hash", "a" * 64),
    ],
    ids=lambda argv: argv[0],
)
def test_a_missing_data_dir_is_named_and_not_created(argv: tuple[str, ...], tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    expect_error(cli(*argv, "--data-dir", str(missing)), "no shop", str(missing), "start")
    assert not missing.exists()


@pytest.mark.parametrize("argv", [("start",), ("status",), ("shop", "show")], ids=lambda argv: argv[0])
def test_a_data_dir_that_is_a_file(argv: tuple[str, ...], tmp_path: Path) -> None:
    path = tmp_path / "a-file"
    path.write_text("notes\n")
    expect_error(cli(*argv, "--data-dir", str(path)), "is a file", "--data-dir")
    assert path.read_text() == "notes\n" and sorted(tmp_path.iterdir()) == [path]


def test_a_data_dir_whose_database_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "shop.sqlite3").write_bytes(b"this is not a database" * 100)
    before = _everything(tmp_path)
    expect_error(cli("status", "--data-dir", str(tmp_path)), "does not hold a readable shop")
    assert _everything(tmp_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory; the message path is unit-tested")
def test_an_unreadable_data_dir(pending: Callable[..., Pending]) -> None:
    run = pending()
    run.data_dir.chmod(0)
    try:
        expect_error(cli("status", "--data-dir", str(run.data_dir)), "not readable and writable")
    finally:
        run.data_dir.chmod(0o700)


def test_bedrock_without_credentials_fails_before_anything_is_written(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = cli("start", "--data-dir", str(data), "--provider", "bedrock", environ=NO_AWS, unset=AWS_KEYS)
    expect_error(done, "bedrock needs AWS credentials", "--profile")
    assert not data.exists()


def test_bedrock_credentials_gone_at_resume_write_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeBedrock() as bedrock:
        flags = ("--provider", "bedrock", "--region", LOOPBACK_REGION, "--bedrock-endpoint", bedrock.url)
        started = cli("start", "--data-dir", str(data), *flags, environ=DUMMY_AWS_ENV)
        assert started.returncode == 0, started.stderr
        before = localstore.fingerprint(data)
        resume = (
            "resume",
            "--data-dir",
            str(data),
            "--checkpoint",
            started["CHECKPOINT_ID"],
            "--decision",
            "approve",
            "--reviewed-hash",
            started["PROPOSAL_HASH"],
            *flags,
        )
        expect_error(cli(*resume, environ=NO_AWS, unset=AWS_KEYS), "credentials")
        assert localstore.fingerprint(data) == before
        assert cli("status", "--data-dir", str(data)).stdout.count("pending") == 1
        # The same resume with credentials goes through: nothing was claimed by the failed one.
        done = cli(*resume, environ=DUMMY_AWS_ENV)
    assert done.returncode == 0, done.stderr
    assert done["PLAN_APPLIED_COUNT"] == "1"


def test_ollama_not_reachable_names_the_host_and_how_to_start_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    host = f"http://127.0.0.1:{free_port()}"
    done = cli("start", "--data-dir", str(data), "--provider", "ollama", "--ollama-host", host)
    expect_error(done, host, "ollama serve")
    assert not data.exists()


def test_ollama_gone_at_resume_writes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOllama() as ollama:
        flags = ("--provider", "ollama", "--ollama-host", ollama.url)
        started = cli("start", "--data-dir", str(data), *flags)
        assert started.returncode == 0, started.stderr
    before = localstore.fingerprint(data)
    done = cli(
        "resume",
        "--data-dir",
        str(data),
        "--checkpoint",
        started["CHECKPOINT_ID"],
        "--decision",
        "reject",
        "--reviewed-hash",
        started["PROPOSAL_HASH"],
        "--reason",
        "not now",
        *flags,
    )
    expect_error(done, ollama.url, "ollama serve")
    assert localstore.fingerprint(data) == before


def test_serve_on_a_port_in_use(pending: Callable[..., Pending]) -> None:
    run = pending()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        before = localstore.fingerprint(run.data_dir)
        expect_error(cli("serve", "--data-dir", str(run.data_dir), "--port", str(port)), f"port {port}", "in use")
    assert localstore.fingerprint(run.data_dir) == before


@pytest.mark.parametrize("port", ["70000", "-1", "eighty"])
def test_serve_on_a_port_out_of_range(port: str, pending: Callable[..., Pending]) -> None:
    run = pending()
    expect_error(cli("serve", "--data-dir", str(run.data_dir), "--port", port), "--port")


def test_a_reason_over_the_limit_says_the_limit(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    done = run.resume("reject", "--reason", "x" * 2001)
    line = expect_error(done, "2000", "--reason")
    assert "validation error" not in line.lower() and "pydantic" not in done.stderr
    assert localstore.fingerprint(run.data_dir) == before


@pytest.mark.parametrize("argv", [("show", "--checkpoint", "{c}"), ("--help",), ("status", "--json")])
def test_a_reader_that_goes_away_ends_quietly(argv: tuple[str, ...], pending: Callable[..., Pending]) -> None:
    run = pending()
    args = [a.format(c=run.checkpoint_id) for a in argv]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes a byte (`| head -0`)
    try:
        done = subprocess.run(
            command(*args, "--data-dir", str(run.data_dir)) if argv[0] != "--help" else command(*args),
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    # argparse writes --help itself and exits 0; a command's own output ends with 141, as `| head` expects.
    assert done.returncode == (0 if argv[0] == "--help" else 141), done.stderr
    assert done.stderr == ""


def test_output_piped_to_head_has_no_broken_pipe_error(pending: Callable[..., Pending]) -> None:
    run = pending()
    exe = " ".join(command("show", "--data-dir", str(run.data_dir), "--checkpoint", run.checkpoint_id))
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{exe} | head -1"], capture_output=True, text=True, env=env(), check=False
    )
    assert done.stdout.startswith("Status: pending")
    assert "Error" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_ctrl_c_stops_serve_with_one_line_and_exit_130(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    port = free_port()
    server = spawn("serve", "--data-dir", str(run.data_dir), "--port", str(port))
    assert wait_for_line(server, "SERVING=") == f"SERVING=http://127.0.0.1:{port}/"
    done = interrupt(server)
    assert done.returncode == 130, done.stderr
    said = [line for line in done.stderr.splitlines() if not line.startswith("20")]  # log lines carry a date
    assert len([line for line in said if line.startswith("interrupted:")]) == 1, done.stderr
    assert "pending approvals stay pending" in done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert localstore.fingerprint(run.data_dir) == before
