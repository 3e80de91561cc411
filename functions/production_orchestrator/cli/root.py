"""The CLI's composition root: one data dir holds one shop, its approvals, sessions, receipt key and logs."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..adapters.local.file_sessions import FileSessionStore
from ..adapters.local.mac_key import KEY_FILE, FileMacKey
from ..adapters.local.sqlite_approvals import SqliteApprovalStore
from ..adapters.local.sqlite_store import SqliteShopStore
from ..domain.errors import ValidationError
from ..services.runtime import Runtime

DB_NAME = "shop.sqlite3"
SESSIONS_DIR = "sessions"
REFUSALS_LOG = "refusals.jsonl"
LINKS_LOG = "links.jsonl"
DEFAULT_LINK_BASE = "http://127.0.0.1:8765/approve"


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


def check_data_dir(data_dir: Path, *, create: bool) -> None:
    """``data_dir`` is a directory this user may read and write (created by ``start``), else ValidationError."""
    hint = "pass --data-dir DIR (or set PO_DATA_DIR)"
    if data_dir.exists() and not data_dir.is_dir():
        raise ValidationError(f"data dir {data_dir} is a file, not a directory: {hint} to a directory")
    if not data_dir.exists():
        if not create:
            raise ValidationError(
                f"no shop in {data_dir}: the directory does not exist; run `production-orchestrator start` first, "
                f"or {hint} where the shop is"
            )
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise ValidationError(f"cannot create data dir {data_dir}: {exc.strerror}: {hint}") from None
    if not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise ValidationError(
            f"data dir {data_dir} is not readable and writable by this user: fix its permissions or {hint}"
        )


def local_runtime(data_dir: Path, *, create: bool) -> Runtime:
    """Adapters for ``data_dir``. Only ``start`` may create it; every other command needs a shop."""
    check_data_dir(data_dir, create=create)
    db = data_dir / DB_NAME
    if not create and not db.is_file():
        raise ValidationError(
            f"data dir {data_dir} holds no shop: run `production-orchestrator start --data-dir {data_dir}` first"
        )
    key = local_mac_key(data_dir)
    try:
        store = SqliteShopStore(db, audit_key=key)
        approvals = SqliteApprovalStore(db)
    except Exception as exc:  # sqlite3.DatabaseError on a file that is not a database
        raise ValidationError(f"data dir {data_dir} does not hold a readable shop ({DB_NAME}: {exc})") from None
    return Runtime(
        store=store,
        sessions=FileSessionStore(data_dir / SESSIONS_DIR),
        clock=utc_now,
        pid=os.getpid(),
        approvals=approvals,
        receipt_key=key,
    )


def local_mailbox(store: object) -> SqliteShopStore:
    """The data dir's approval-mail outbox: the SQLite shop store ``local_runtime`` built."""
    assert isinstance(store, SqliteShopStore), "the local runtime's store is the SQLite shop store"
    return store


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
