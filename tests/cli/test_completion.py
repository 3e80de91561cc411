"""``completion bash|zsh|fish``: scripts written from the parser. The bash script is run in bash and asked what
it completes, as a TAB would; zsh and fish (not installed here) are checked for every command they must name."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from production_orchestrator.cli.completion import tree, walk
from production_orchestrator.cli.main import root_parser
from tests.support.clidriver import cli, expect_error

# Calls the script's function as bash's completion would (COMP_WORDS / COMP_CWORD set), one line per case.
BASH_DRIVER = """
source "$1"; shift
for line in "$@"; do
    read -r -a COMP_WORDS <<< "$line"
    [[ "$line" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _production_orchestrator
    echo "${COMPREPLY[*]}"
done
"""


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = cli("completion", "bash")
    assert run.returncode == 0, run.stderr
    path = tmp_path_factory.mktemp("completion") / "production-orchestrator.bash"
    path.write_text(run.stdout)
    return path


def complete(script: Path, *lines: str) -> list[list[str]]:
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", BASH_DRIVER, "driver", str(script), *lines],
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    return [line.split() for line in done.stdout.splitlines()]


def test_bash_completes_command_names(bash_script: Path) -> None:
    top, shop, typed = complete(bash_script, "production-orchestrator ", "production-orchestrator shop ",
                                "production-orchestrator st")  # fmt: skip
    names = {n.path[0] for n in walk(tree(root_parser())) if len(n.path) == 1}
    assert names <= set(top) and {"start", "status", "completion", "outbox"} <= names
    assert "shop-import" not in top  # a hidden old spelling is not offered
    assert {"show", "import", "export", "receive", "set-inventory"} <= set(shop)
    assert typed == ["start", "status"]


def test_bash_completes_options_and_their_values(bash_script: Path) -> None:
    flags, values, after_dir, shells, free = complete(
        bash_script,
        "production-orchestrator start --prov",
        "production-orchestrator start --provider ",
        "production-orchestrator --data-dir /srv/shop shop i",
        "production-orchestrator completion ",
        "production-orchestrator start --request ",
    )
    assert flags == ["--provider"]
    assert values == ["deterministic", "bedrock", "ollama"]
    assert after_dir == ["import"]  # a global flag's value is not taken for a command word
    assert {"bash", "zsh", "fish"} <= set(shells)
    assert free == []  # a free value: bash falls back to file names (complete -o default)


def test_the_bash_script_is_valid_bash(bash_script: Path) -> None:
    subprocess.run(["bash", "-n", str(bash_script)], check=True, timeout=30)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_name_every_command_and_option(shell: str) -> None:
    run = cli("completion", shell)
    assert run.returncode == 0, run.stderr
    for node in walk(tree(root_parser())):
        for name in node.commands:
            assert name in run.stdout, (shell, node.path, name)
        for option in node.options:
            spelled = option.flags[-1] if shell == "zsh" else f"-l {option.flags[-1][2:]}"
            assert spelled in run.stdout, (shell, node.path, option.flags)
    if shutil.which(shell):
        subprocess.run([shell, "-n"], input=run.stdout, text=True, check=True, timeout=30)


def test_an_unknown_shell_is_refused() -> None:
    expect_error(cli("completion", "powershell"), "invalid choice")
