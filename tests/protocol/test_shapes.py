"""protocol.shapes: the small helpers every builder shares (unset fields, base64, JSON)."""

from __future__ import annotations

from typing import Any

import pytest

from genmcp.protocol.shapes import compact_json, copy_mapping, put, to_base64


def test_put_skips_none_only() -> None:
    target: dict[str, Any] = {}
    for key, value in (("a", None), ("b", 0), ("c", ""), ("d", False), ("e", [])):
        put(target, key, value)
    assert target == {"b": 0, "c": "", "d": False, "e": []}


def test_copy_mapping_is_shallow_and_keeps_none() -> None:
    inner = {"x": 1}
    source = {"k": inner}
    copied = copy_mapping(source)
    assert copied == source and copied is not source
    assert copied is not None and copied["k"] is inner
    assert copy_mapping(None) is None


@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"\x00\xffhi", "AP9oaQ=="),
        (bytearray(b"ab"), "YWI="),
        (memoryview(b"abc"), "YWJj"),
        (b"", ""),
        ("AP9oaQ==", "AP9oaQ=="),  # a str that is base64 already passes unchanged
    ],
)
def test_to_base64(data: Any, encoded: str) -> None:
    assert to_base64(data, "blob") == encoded


@pytest.mark.parametrize("text", ["not base64!", "YWJ", "YW Jj", "YWI=\n="])
def test_a_str_that_is_not_base64_names_the_field(text: str) -> None:
    with pytest.raises(ValueError, match=r"^blob is a str but not valid standard base64"):
        to_base64(text, "blob")


def test_other_types_are_refused() -> None:
    with pytest.raises(TypeError, match=r"^data must be bytes or a base64 str, not int"):
        to_base64(7, "data")  # type: ignore[arg-type]


def test_compact_json_keeps_unicode_and_refuses_nan() -> None:
    assert compact_json({"a": [1, "é\u2028"], "b": None}) == '{"a":[1,"é\u2028"],"b":null}'
    with pytest.raises(ValueError):
        compact_json({"x": float("nan")})
