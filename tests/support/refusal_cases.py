"""One way to provoke each refusal code against a real, pending checkpoint in a local data dir.

Shared by the contract tests and `make evidence`, so the evidence reports exactly what the tests prove.
Each case prepares its fault (possibly by tampering with the store out of band) and returns the
arguments of the resume that must be refused.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from tests.support.clidriver import Run, cli
from tests.support.localstore import DB_NAME


@dataclass(frozen=True)
class Pending:
    """A data dir with one run waiting for approval, and the ids its start printed."""

    data_dir: Path
    checkpoint_id: str
    proposal_hash: str
    interrupt_id: str
    session_id: str
    start_values: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_start(cls, data_dir: Path, run: Run) -> Pending:
        """The pending run a successful ``start`` printed."""
        return cls(
            data_dir,
            run["CHECKPOINT_ID"],
            run["PROPOSAL_HASH"],
            run["INTERRUPT_ID"],
            run["SESSION_ID"],
            tuple(sorted(run.values.items())),
        )

    def moved_to(self, data_dir: Path) -> Pending:
        """The same run, in a copy of its data dir."""
        return replace(self, data_dir=data_dir)

    def cli(self, *args: str) -> Run:
        return cli(args[0], "--data-dir", str(self.data_dir), *args[1:])

    def resume_args(self, decision: str = "approve", *extra: str, reviewed_hash: str | None = None) -> tuple[str, ...]:
        return (
            "resume",
            "--checkpoint",
            self.checkpoint_id,
            "--decision",
            decision,
            "--reviewed-hash",
            reviewed_hash or self.proposal_hash,
            "--approver",
            "shop-owner",
            # The CLI asks a rejection for its reason, as the page does.
            *(("--reason", "not this week") if decision == "reject" and "--reason" not in extra else ()),
            *extra,
        )

    def resume(self, decision: str = "approve", *extra: str) -> Run:
        return self.cli(*self.resume_args(decision, *extra))


def tamper(data_dir: Path, sql: str, *params: object) -> None:
    """An out-of-band edit of the store, as an attacker or a bug would make it."""
    with sqlite3.connect(data_dir / DB_NAME) as conn:
        if conn.execute(sql, params).rowcount != 1:
            raise AssertionError(f"tampering touched no row: {sql}")


def _checkpoint_tampered(p: Pending) -> tuple[str, ...]:
    tamper(
        p.data_dir,
        "UPDATE checkpoints SET raw = replace(raw, '\"start_pid\":', '\"start_pid\":1') WHERE checkpoint_id = ?",
        p.checkpoint_id,
    )
    return p.resume_args()


def _interrupt_mismatch(p: Pending) -> tuple[str, ...]:
    return p.resume_args("approve", "--interrupt-id", p.interrupt_id + "-other")


def _session_mismatch(p: Pending) -> tuple[str, ...]:
    return p.resume_args("approve", "--session-id", "sess-" + "0" * 32)


def _provider_mismatch(p: Pending) -> tuple[str, ...]:
    return p.resume_args("approve", "--model", "another-model")


def _proposal_integrity(p: Pending) -> tuple[str, ...]:
    tamper(
        p.data_dir,
        "UPDATE proposals SET data = CAST(replace(CAST(data AS TEXT), '\"quantity\":', '\"quantity\":1') AS BLOB) "
        "WHERE proposal_hash = ?",
        p.proposal_hash,
    )
    return p.resume_args()


def _reviewed_hash_mismatch(p: Pending) -> tuple[str, ...]:
    return p.resume_args(reviewed_hash="f" * 64)


def _stale_domain_state(p: Pending) -> tuple[str, ...]:
    changed = p.cli("shop", "set-inventory", "THREAD-RED-40", "0")  # the plan's purchase no longer covers its order
    if changed.returncode != 0:
        raise AssertionError(changed.stderr)
    return p.resume_args()


def _already_decided(p: Pending) -> tuple[str, ...]:
    first = p.cli(*p.resume_args("approve"))
    if first.returncode != 0:
        raise AssertionError(first.stderr)
    return p.resume_args("approve")


def _expired(p: Pending) -> tuple[str, ...]:
    # Needs a checkpoint started with a short window (see EXPIRING_WINDOW).
    time.sleep(1.2)
    return p.resume_args()


EXPIRING_WINDOW = "1s"
CASES: dict[str, Callable[[Pending], tuple[str, ...]]] = {
    "CHECKPOINT_INVALID": _checkpoint_tampered,
    "INTERRUPT_MISMATCH": _interrupt_mismatch,
    "SESSION_MISMATCH": _session_mismatch,
    "PROVIDER_MISMATCH": _provider_mismatch,
    "PROPOSAL_INTEGRITY": _proposal_integrity,
    "REVIEWED_HASH_MISMATCH": _reviewed_hash_mismatch,
    "STALE_DOMAIN_STATE": _stale_domain_state,
    "ALREADY_DECIDED": _already_decided,
    "EXPIRED": _expired,
}


def observed_code(run: Run) -> str | None:
    """The code a refused resume printed, if it was refused."""
    return run.values.get("REFUSED") if run.returncode == 3 else None


def refusals_logged(data_dir: Path) -> list[dict[str, object]]:
    """Entries of the data dir's refusals.jsonl."""
    path = data_dir / "refusals.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def start_into(data_dir: Path, scenario: str, *extra: str) -> Pending:
    """``start`` a scenario into ``data_dir`` through the real CLI; the pending approval it left."""
    run = cli("start", "--data-dir", str(data_dir), "--scenario", scenario, *extra)
    assert run.returncode == 0, run.stderr
    return Pending.from_start(data_dir, run)
