"""The CLI's argument types and data-dir checks, in process (the console-script tests in tests/cli drive
the same through the installed command)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from production_orchestrator.cli import inputs
from production_orchestrator.cli.parser import data_dir
from production_orchestrator.cli.root import check_data_dir, link_bases, record_link_base
from production_orchestrator.domain.errors import ValidationError


def test_hashes_are_lower_cased_and_must_be_whole() -> None:
    assert inputs.proposal_hash(" " + "AB" * 32 + " ") == "ab" * 32
    for bad in ("ab" * 31, "g" * 64, ""):
        with pytest.raises(argparse.ArgumentTypeError):
            inputs.proposal_hash(bad)
    assert inputs.identifier(" CKPT-ABC ") == "ckpt-abc"


def test_name_lists() -> None:
    assert inputs.names(" ana@x.com , ben@y.com ") == ("ana@x.com", "ben@y.com")
    for bad in ("a@x.com,,b@y.com", ",a@x.com", "a@x.com,", "a@x.com,A@X.com", " "):
        with pytest.raises(argparse.ArgumentTypeError):
            inputs.names(bad)


def test_numbers_ports_and_urls() -> None:
    assert inputs.at_least_one("3") == 3 and inputs.zero_or_more("0") == 0
    assert inputs.port("0") == 0 and inputs.port("65535") == 65535
    for fn, bad in (
        (inputs.at_least_one, "0"),
        (inputs.zero_or_more, "-1"),
        (inputs.port, "65536"),
        (inputs.port, "x"),
    ):
        with pytest.raises(argparse.ArgumentTypeError):
            fn(bad)
    assert inputs.link_base("https://approvals.example.com/approve") == "https://approvals.example.com/approve"
    for bad in (
        "ftp://x/approve",
        "javascript:alert(1)",
        "http:///approve",
        "http://u:p@x/a",
        "http://x/a?q=1",
        "http://x:99999/",
    ):
        with pytest.raises(argparse.ArgumentTypeError):
            inputs.link_base(bad)
    assert inputs.reason("x" * 2000) == "x" * 2000
    with pytest.raises(argparse.ArgumentTypeError, match="2000"):
        inputs.reason("x" * 2001)


def test_the_data_dir_comes_from_the_flag_the_environment_or_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PO_DATA_DIR", raising=False)
    assert data_dir(argparse.Namespace()) == Path(".production-orchestrator")
    monkeypatch.setenv("PO_DATA_DIR", "/srv/shop")
    assert data_dir(argparse.Namespace()) == Path("/srv/shop")
    assert data_dir(argparse.Namespace(data_dir=Path("/tmp/d"))) == Path("/tmp/d")


def test_an_unreadable_data_dir_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Running as root, permissions cannot make a directory unreadable: ask os.access as a user would be answered.
    monkeypatch.setattr(os, "access", lambda *_args, **_kw: False)
    with pytest.raises(ValidationError, match="not readable and writable"):
        check_data_dir(tmp_path, create=False)


def test_start_creates_the_data_dir_private(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    check_data_dir(target, create=True)
    assert target.is_dir() and (target.stat().st_mode & 0o777) == 0o700
    with pytest.raises(ValidationError, match="does not exist"):
        check_data_dir(tmp_path / "missing", create=False)


def test_link_bases_are_remembered_per_approval(tmp_path: Path) -> None:
    assert link_bases(tmp_path) == {}
    record_link_base(tmp_path, "appr-1", "http://127.0.0.1:9000/approve")
    with (tmp_path / "links.jsonl").open("a") as handle:
        handle.write("not json\n")
    record_link_base(tmp_path, "appr-2", "https://x.example/approve")
    assert link_bases(tmp_path) == {"appr-1": "http://127.0.0.1:9000/approve", "appr-2": "https://x.example/approve"}
