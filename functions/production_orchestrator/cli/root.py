"""The CLI's side of the data dir: its runtime (bootstrap.local: one data dir holds one shop, its approvals,
sessions and key), and the logs beside it (refusals, the link base of each approval).

Every command module imports this to build the parser, so the composition root and its adapters are imported
only when a function here runs.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..adapters.local.mac_key import FileMacKey
    from ..adapters.local.sqlite_approvals import SqliteApprovalStore
    from ..services.runtime import Runtime

REFUSALS_LOG = "refusals.jsonl"
LINKS_LOG = "links.jsonl"
DEFAULT_LINK_BASE = "http://127.0.0.1:8765/approve"


def local_runtime(data_dir: Path, *, create: bool) -> Runtime:
    """The runtime of ``data_dir`` (bootstrap.local). Only ``start`` may create it; every other command needs a
    shop."""
    from ..bootstrap import local

    return local(data_dir, create=create)


def utc_now() -> datetime:
    """The command's clock, in UTC: ``--now`` / ``$PO_NOW`` when given, else the wall clock (bootstrap.local_now)."""
    from ..bootstrap import local_now

    return local_now()


def check_data_dir(data_dir: Path, *, create: bool) -> None:
    """``data_dir`` is a usable directory (bootstrap.check_data_dir), else ValidationError."""
    from ..bootstrap import check_data_dir as check

    check(data_dir, create=create)


def db_path(data_dir: Path) -> Path:
    """The shop's database in ``data_dir``."""
    from ..bootstrap import DB_NAME

    return data_dir / DB_NAME


def log_refusal(data_dir: Path, entry: dict[str, Any]) -> None:
    """Append one refusal to ``refusals.jsonl``: outside the shop's store, which a refusal never touches."""
    if not data_dir.is_dir():
        return
    with (data_dir / REFUSALS_LOG).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")


def local_approvals(data_dir: Path) -> SqliteApprovalStore:
    """The approval records of ``data_dir`` (same database as the shop)."""
    from ..adapters.local.sqlite_approvals import SqliteApprovalStore

    return SqliteApprovalStore(db_path(data_dir))


def local_mac_key(data_dir: Path) -> FileMacKey:
    """The receipt key of ``data_dir``, created (0600) on first use: it MACs decision receipts and the links of
    the audit chain."""
    from ..adapters.local.mac_key import KEY_FILE, FileMacKey

    return FileMacKey(data_dir / KEY_FILE)


def record_link_base(data_dir: Path, approval_id: str, link_base: str) -> None:
    """Remember which link base an approval's links start with (no secret), so ``serve`` can check its port."""
    with (data_dir / LINKS_LOG).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"approval_id": approval_id, "link_base": link_base}, sort_keys=True) + "\n")


def link_bases(data_dir: Path) -> dict[str, str]:
    """The link base of each approval ``start`` issued links for (unreadable lines are skipped)."""
    found: dict[str, str] = {}
    try:
        lines = (data_dir / LINKS_LOG).read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            entry = json.loads(line)
            found[str(entry["approval_id"])] = str(entry["link_base"])
        except (ValueError, KeyError, TypeError):
            continue
    return found
