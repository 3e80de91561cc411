"""Canonical JSON and the one hash every contract uses (DESIGN.md section 4)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _reject_floats(value: Any, path: str = "$") -> None:
    if isinstance(value, float):
        raise TypeError(f"floats are not allowed in hashed content (at {path}); use integers or decimal strings")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings (at {path})")
            _reject_floats(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _reject_floats(item, f"{path}[{index}]")


_SCALARS = (str, int, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)


def _has_floats(value: Any) -> bool:
    """True when ``value`` holds a float or a non-string key anywhere (one pass, no paths: the cheap check)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            if any(type(k) is not str for k in item):
                return True
            stack.extend(v for v in item.values() if type(v) not in _SCALAR_TYPES)
        elif kind is list or kind is tuple:
            stack.extend(v for v in item if type(v) not in _SCALAR_TYPES)
        elif not isinstance(item, _SCALARS) or isinstance(item, float):
            return True  # a float, or a subclass the slow check below classifies with its path
    return False


def canonical_json(value: Any) -> str:
    """Serialize ``value`` as canonical JSON: sorted keys, compact separators, UTF-8, no floats."""
    if _has_floats(value):
        _reject_floats(value)  # names where (and refuses); lets other values through to json as before
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of :func:`canonical_json`."""
    return canonical_json(value).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """``sha256(canonical(value))``: the address of proposals, digests and identities."""
    return sha256_hex(canonical_bytes(value))


def without_empty(data: dict[str, Any], *names: str) -> dict[str, Any]:
    """``data`` without those of the fields ``names`` that are empty: a record keeps the digest it had before
    those fields existed."""
    return {key: value for key, value in data.items() if key not in names or value}
