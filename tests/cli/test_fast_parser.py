"""The parser is built without importing any command's implementation: ``--help`` and ``help X`` import no
service, adapter, page, model provider or SDK (what each command does loads only when it runs).

Checked on the installed console script with ``PYTHONPROFILEIMPORTTIME`` (the interpreter lists every module it
imports on stderr): what a user's ``--help`` imports is what is tested, not timed.
"""

from __future__ import annotations

import pytest

from tests.support.clidriver import cli

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
