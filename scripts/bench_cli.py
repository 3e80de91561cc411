"""CLI figures for evidence/bench.json: how much CPU a command costs, as a ratio against ``import boto3``.

    python scripts/bench_cli.py [--runs 7] [--update evidence/bench.json]

Each round runs, as fresh processes of the installed console script and in turn, ``--help``, ``status`` and
``show`` on a data dir with one run waiting, ``start`` on the demo shop (a new data dir each time), and the
baseline ``python -c "import boto3"`` on the same interpreter. A process's CPU is what the OS accounts for it
when it ends (user + system, ``os.wait4``). Each command's figure is the median, over rounds, of its CPU
divided by the baseline's in the same round, so a machine that speeds up or slows down between rounds moves
both sides of a ratio alike. The package's bytecode is compiled first, as an install compiles it (the
baseline's site-packages are compiled). Targets (issue 30): ``--help``, ``status``, ``show`` under 1.0x the
baseline; ``start`` under 1.5 s CPU. ``make bench`` runs it as one of its steps.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from tests.support.clidriver import command, env  # noqa: E402

TARGET_READ_RATIO = 1.0  # --help, status, show: x import boto3
TARGET_START_CPU_S = 1.5
BASELINE = (sys.executable, "-c", "import boto3")


def cpu_seconds(argv: Sequence[str]) -> float:
    """The CPU (user + system) the process running ``argv`` used, as the OS accounted it when it ended."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{list(argv)[:4]} failed ({process.returncode}): {errors[-800:]!r}")
    return usage.ru_utime + usage.ru_stime


def _pending(data_dir: Path) -> str:
    """Start one run on ``data_dir`` (it waits for approval); its checkpoint id."""
    done = subprocess.run(command("start", "--data-dir", str(data_dir)), capture_output=True, text=True, env=env())
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-800:])
    found = [line.split("=", 1)[1] for line in done.stdout.splitlines() if line.startswith("CHECKPOINT_ID=")]
    return found[0]


def run(runs: int) -> dict[str, Any]:
    """The CLI's figures: per command the median CPU, the median paired ratio to ``import boto3``, the target."""
    compileall.compile_dir(str(ROOT / "functions" / "production_orchestrator"), quiet=1)
    tmp = Path(tempfile.mkdtemp(prefix="po-bench-cli-"))
    try:
        shop = tmp / "shop"
        checkpoint = _pending(shop)
        commands = {
            "help": command("--help"),
            "status": command("--data-dir", str(shop), "status"),
            "show": command("--data-dir", str(shop), "show", "--checkpoint", checkpoint),
        }
        for argv in (BASELINE, *commands.values()):  # warm the page cache once
            cpu_seconds(argv)
        cpu: dict[str, list[float]] = {name: [] for name in (*commands, "start", "import_boto3")}
        ratios: dict[str, list[float]] = {name: [] for name in (*commands, "start")}
        for round_number in range(runs):
            base = cpu_seconds(BASELINE)
            cpu["import_boto3"].append(base)
            for name, argv in commands.items():
                cpu[name].append(cpu_seconds(argv))
                ratios[name].append(cpu[name][-1] / base)
            cpu["start"].append(cpu_seconds(command("start", "--data-dir", str(tmp / f"start-{round_number}"))))
            ratios["start"].append(cpu["start"][-1] / base)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report: dict[str, Any] = {
        "runs": runs,
        "cpu_s_median": {name: round(statistics.median(v), 3) for name, v in cpu.items()},
        "cpu_s_range": {name: [round(min(v), 3), round(max(v), 3)] for name, v in cpu.items()},
        "ratio_to_import_boto3_median": {name: round(statistics.median(v), 3) for name, v in ratios.items()},
        "target_ratio_read_commands": TARGET_READ_RATIO,
        "target_start_cpu_s": TARGET_START_CPU_S,
    }
    medians = report["ratio_to_import_boto3_median"]
    report["read_commands_under_target"] = all(medians[name] < TARGET_READ_RATIO for name in commands)
    report["start_under_target"] = report["cpu_s_median"]["start"] < TARGET_START_CPU_S
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--update", type=Path, default=None, help="merge the figures into this bench.json")
    args = parser.parse_args(argv)
    figures = run(args.runs)
    print(json.dumps(figures, indent=2, sort_keys=True))
    if args.update is not None:
        report = json.loads(args.update.read_text()) if args.update.is_file() else {}
        report["cli"] = figures
        args.update.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
