"""The CLI's side of the data dir: its runtime (bootstrap.local: one data dir holds one shop, its approvals,
sessions and key), and the logs beside it (refusals, the link base of each approval)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..adapters.local.mac_key import KEY_FILE, FileMacKey
from ..adapters.local.sqlite_approvals import SqliteApprovalStore
from ..bootstrap import DB_NAME, check_data_dir, local, utc_now
from ..services.runtime import Runtime

__all__ = ["DB_NAME", "check_data_dir", "local_runtime", "utc_now"]

REFUSALS_LOG = "refusals.jsonl"
LINKS_LOG = "links.jsonl"
DEFAULT_LINK_BASE = "http://127.0.0.1:8765/approve"


def local_runtime(data_dir: Path, *, create: bool) -> Runtime:
    """The runtime of ``data_dir`` (bootstrap.local). Only ``start`` may create it; every other command needs a
    shop."""
    return local(data_dir, create=create)


def log_refusal(data_dir: Path, entry: dict[str, Any]) -> None:
    """Append one refusal to ``refusals.jsonl``: outside the shop's store, which a refusal never touches."""
    if not data_dir.is_dir():
        return
    with (data_dir / REFUSALS_LOG).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True) + "\n")


def local_approvals(data_dir: Path) -> SqliteApprovalStore:
    """The approval records of ``data_dir`` (same database as the shop)."""
    return SqliteApprovalStore(data_dir / DB_NAME)


def local_mac_key(data_dir: Path) -> FileMacKey:
    """The receipt key of ``data_dir``, created (0600) on first use: it MACs decision receipts and the links of
    the audit chain."""
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
