"""The configuration file (production-orchestrator.toml): the data dir's, then the user's, under the flags;
bad keys and values refused naming the file and the key, with nothing written; a resume runs with the binding
its checkpoint recorded, whatever the file says, and a flag that differs is still refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import localstore
from tests.support.clidriver import Run, cli, expect_error
from tests.support.refusal_cases import Pending

NAME = "production-orchestrator.toml"


def user_config(tmp_path: Path, text: str) -> dict[str, str]:
    """An XDG config home whose production-orchestrator.toml holds ``text``; the environment naming it."""
    folder = tmp_path / "xdg" / "production-orchestrator"
    folder.mkdir(parents=True)
    (folder / NAME).write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def start(data_dir: Path, environ: dict[str, str], *flags: str) -> Run:
    return cli("start", "--data-dir", str(data_dir), "--print-links", *flags, environ=environ)


def test_start_takes_approvers_and_link_base_from_the_users_file(tmp_path: Path) -> None:
    environ = user_config(
        tmp_path, 'approvers = ["ana@example.com", "ben"]\nlink_base = "http://127.0.0.1:9000/approve"\n'
    )
    run = start(tmp_path / "data", environ)
    assert run.returncode == 0, run.stderr
    assert (run["APPROVER_1"], run["APPROVER_2"], run["APPROVALS_REQUIRED"]) == ("ana@example.com", "ben", "1")
    assert run["APPROVAL_URL_1"].startswith("http://127.0.0.1:9000/approve?")


def test_a_flag_wins_over_the_file_and_the_data_dirs_file_over_the_users(tmp_path: Path) -> None:
    environ = user_config(tmp_path, 'approvers = ["ana@example.com"]\nlink_base = "http://127.0.0.1:9000/approve"\n')
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / NAME).write_text('approvers = ["cleo@example.com"]\n')
    run = start(data, environ, "--link-base", "http://127.0.0.1:9100/approve")
    assert run.returncode == 0, run.stderr
    assert run["APPROVER_1"] == "cleo@example.com" and "APPROVER_2" not in run.values
    assert run["APPROVAL_URL_1"].startswith("http://127.0.0.1:9100/approve?")


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ('modle = "x"\n', "modle", "is not a setting"),
        ('provider = "gpt"\n', "provider", "is not a provider"),
        ('approvers = "ana@example.com"\n', "approvers", "must be a list"),
        ('approvers = ["ana@example.com", "ANA@example.com"]\n', "approvers", "listed twice"),
        ('link_base = "ftp://shop/approve"\n', "link_base", "is not an http"),
        ("region = 5\n", "region", "non-empty string"),
        ("[provider]\nname = 'bedrock'\n", "provider", "is not a provider"),
        ("provider = \n", "", "is not valid TOML"),
    ],
)
def test_a_bad_file_is_refused_naming_file_and_key_and_nothing_is_written(
    tmp_path: Path, text: str, key: str, words: str
) -> None:
    environ = user_config(tmp_path, text)
    data = tmp_path / "data"
    line = expect_error(
        start(data, environ), "CONFIG_INVALID", str(tmp_path / "xdg" / "production-orchestrator" / NAME)
    )
    assert words in line and (f"{NAME}: {key}: " in line if key else True), line
    assert not data.exists()  # start creates the data dir: it never began


def test_a_bad_data_dir_file_leaves_the_shop_as_it_was(pending: Callable[..., Pending]) -> None:
    run = pending()
    (run.data_dir / NAME).write_text('approvers = ["ana@example.com"]\nmodel = ""\n')
    before = localstore.fingerprint(run.data_dir)
    expect_error(cli("start", "--data-dir", str(run.data_dir), "--again"), "CONFIG_INVALID", f"{NAME}: model: ")
    assert localstore.fingerprint(run.data_dir) == before


def test_resume_runs_with_the_checkpoints_binding_not_the_files(pending: Callable[..., Pending]) -> None:
    run = pending()
    (run.data_dir / NAME).write_text('provider = "bedrock"\nregion = "eu-west-1"\n')
    result = run.resume("approve")  # no provider flag: the checkpoint's (deterministic) binding
    assert result.returncode == 0, result.stderr
    assert (result["OUTCOME"], result["STATE_REVISION"]) == ("applied", "2")


def test_resume_refuses_a_typed_flag_that_differs_from_the_checkpoint(pending: Callable[..., Pending]) -> None:
    run = pending()
    before = localstore.fingerprint(run.data_dir)
    result = run.resume("approve", "--provider", "ollama")
    assert (result.returncode, result["REFUSED"]) == (3, "PROVIDER_MISMATCH")
    assert localstore.fingerprint(run.data_dir) == before
