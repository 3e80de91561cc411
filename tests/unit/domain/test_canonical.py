"""Canonical JSON: one function, sorted keys, compact, UTF-8, no floats."""

from __future__ import annotations

import pytest

from production_orchestrator.domain.canonical import canonical_json, content_hash


def test_sorted_compact_utf8() -> None:
    assert canonical_json({"b": 1, "a": ["é", None, True]}) == '{"a":["é",null,true],"b":1}'


def test_key_order_does_not_change_the_hash() -> None:
    assert content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})


def test_list_order_does() -> None:
    assert content_hash([1, 2]) != content_hash([2, 1])


@pytest.mark.parametrize(
    "value",
    [1.5, {"x": [0.1]}, {"n": float("nan")}, ({"deep": [[{"y": (1, 2.0)}]]},), [{"a": "s"}, {"b": [True, 1e3]}]],
)
def test_floats_are_refused(value: object) -> None:
    with pytest.raises(TypeError, match="float"):
        canonical_json(value)


def test_known_vector() -> None:
    # sha256 of b'{"a":1}'
    assert content_hash({"a": 1}) == "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"


def test_non_string_keys_are_refused_with_their_path() -> None:
    with pytest.raises(TypeError, match=r"keys must be strings \(at \$\.a\[0\]\)"):
        canonical_json({"a": [{1: "x"}]})


def test_nested_content_without_floats_passes() -> None:
    found = canonical_json({"a": [(1, "x", None, False), {"b": {"c": []}}]})
    assert found == '{"a":[[1,"x",null,false],{"b":{"c":[]}}]}'
