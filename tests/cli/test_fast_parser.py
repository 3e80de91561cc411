"""The parser is built without importing any command's implementation: ``--help`` and ``help X`` import no
service, adapter, page, model provider or SDK (what each command does loads only when it runs).

Checked on the installed console script with ``PYTHONPROFILEIMPORTTIME`` (the interpreter lists every module it
imports on stderr): what a user's ``--help`` imports is what is tested, not timed.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.clidriver import cli
from tests.support.refusal_cases import Pending

# What no help may import: the layers below the CLI, the SDKs, pydantic (every model), the composition root.
FORBIDDEN = (
    "production_orchestrator.services",
    "production_orchestrator.adapters",
    "production_orchestrator.bootstrap",
    "production_orchestrator.approval_web.pages",
    "production_orchestrator.approval_web.local_server",
    "production_orchestrator.agent.providers",
    "production_orchestrator.domain.records",
    "production_orchestrator.domain.shop",
    "production_orchestrator.domain.planning",
    "strands",
    "boto3",
    "botocore",
    "pydantic",
)


def imported_modules(stderr: str) -> set[str]:
    """The modules an ``-X importtime`` report on ``stderr`` names."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def forbidden_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f"{f}.") for f in FORBIDDEN))


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("help",),
        ("help", "start"),
        ("start", "--help"),
        ("help", "shop", "import"),
        ("outbox", "send", "-h"),
    ],
    ids=" ".join,
)
def test_help_imports_no_implementation(argv: tuple[str, ...]) -> None:
    run = cli(*argv, environ={"PYTHONPROFILEIMPORTTIME": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    modules = imported_modules(run.stderr)
    assert "production_orchestrator.cli.main" in modules  # the report is read
    assert forbidden_in(modules) == []


def test_the_report_is_read_as_imports() -> None:
    report = "import time: self [us] | cumulative | imported package\nimport time:   10 |   20 |   pydantic.main\n"
    assert forbidden_in(imported_modules(report)) == ["pydantic.main"]


# What a read-only command has no use for: the agent and its SDKs, the planner's solver, the e-mail reader, the
# pages, and every other command's module.
NOT_FOR_READING = (
    "strands",
    "boto3",
    "botocore",
    "production_orchestrator.agent.providers",
    "production_orchestrator.domain.planning.solver",
    "production_orchestrator.domain.intake.customer_message",
    "production_orchestrator.approval_web.local_server",
)


@pytest.mark.parametrize("command", ["status", "show"])
def test_status_and_show_import_only_what_they_read(pending: Callable[..., Pending], command: str) -> None:
    run_dir = pending()
    words = ("show", "--checkpoint", run_dir.checkpoint_id) if command == "show" else ("status",)
    run = cli("--data-dir", str(run_dir.data_dir), *words, environ={"PYTHONPROFILEIMPORTTIME": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    modules = imported_modules(run.stderr)
    assert f"production_orchestrator.cli.commands.{command}" in modules
    others = {m for m in modules if m.startswith("production_orchestrator.cli.commands.")}
    assert others == {f"production_orchestrator.cli.commands.{command}"}
    assert sorted(m for m in modules if any(m == f or m.startswith(f"{f}.") for f in NOT_FOR_READING)) == []
