"""The files commands read and write: a request or shop file (``-``: standard input), the shop file's schema,
and a shop document written as a shop file (``-``: standard output).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import ShopFileError, ValidationError

if TYPE_CHECKING:  # the shop model loads when a file is read, not when the parser is built
    from ..domain.shop.file_format import Problem
    from ..domain.shop.model import ShopState

MAX_FILE_BYTES = 64 * 1024 * 1024


def read_text(path: str, what: str) -> str:
    """The text of ``path`` (``-``: standard input), as UTF-8 (Latin-1 when it is not)."""
    try:
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise ValidationError(f"cannot read the {what} {path}: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValidationError(f"the {what} {path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


@cache
def shop_schema() -> dict[str, Any]:
    """The JSON Schema shop files are validated against (docs/shop.schema.json ships in the package)."""
    return dict(json.loads((resources.files(__package__) / "shop.schema.json").read_text(encoding="utf-8")))


def schema_problems(doc: Any) -> list[Problem]:
    """Every violation of the shop schema, by JSON path (in path order)."""
    from jsonschema import Draft202012Validator

    from ..domain.shop.file_format import json_path

    validator = Draft202012Validator(shop_schema())
    found = [(json_path(*e.absolute_path), e.message) for e in validator.iter_errors(doc)]
    return sorted(found)


def parse_shop_file(text: str) -> ShopState:
    """A shop file's state, or ``ShopFileError`` naming every problem (invalid JSON is one problem)."""
    from ..domain.shop.file_format import read_shop

    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ShopFileError([("$", f"invalid JSON: {exc}")]) from None
    except RecursionError:
        raise ShopFileError([("$", "invalid shop file: nested too deeply")]) from None
    return read_shop(doc, schema_problems=schema_problems(doc))


def write_shop_file(document: dict[str, Any], path: str) -> None:
    """Write a shop document to ``path`` (``-``: stdout) as indented JSON."""
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot write {path}: {exc.strerror}") from None


def check_html_path(path: Path) -> Path:
    """``path`` if a page can be written there (its directory exists, it is not one), else ValidationError."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ValidationError(f"--html {path}: the directory {folder} does not exist")
    if path.is_dir():
        raise ValidationError(f"--html {path}: that is a directory; give a file name")
    return path


def write_html(path: Path, body: str) -> None:
    """Write ``body`` to ``path`` whole or not at all (a temp file in the same directory, then rename)."""
    check_html_path(path)
    handle, temp = tempfile.mkstemp(dir=path.parent if str(path.parent) else Path("."), prefix=".show-", suffix=".html")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(body)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
