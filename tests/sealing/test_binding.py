"""genmcp.sealing.binding: digest, the canonical JSON hash that binds a token to its call."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from genmcp.sealing import Sealer, digest
from tests.sealing.sealing_kit import KEY_A


def test_digest_is_unchanged_by_the_package() -> None:
    """Computed by genmcp.sealing as one module (before the package)."""
    assert digest("add", {"b": 1, "a": "\u00e9"}, None) == (
        "dff60a34c1a1345f45738be682143a5d038a2edc4ef6a03a81c93b1797a6f8fc"
    )


def test_digest_is_sha256_of_canonical_json() -> None:
    expected = hashlib.sha256('["add",{"a":1,"b":"é"},null]'.encode()).hexdigest()
    assert digest("add", {"b": "é", "a": 1}, None) == expected
    assert re.fullmatch(r"[0-9a-f]{64}", expected)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("add", {"a": 1}), ("add", {"a": 2})),
        (("add", {"a": 1}), ("sub", {"a": 1})),
        (("a", "b"), ("ab",)),
        (("a", "b"), (["a", "b"],)),
        ((1,), ("1",)),
        ((1,), (True,)),
        (("x", None), ("x",)),
    ],
)
def test_digest_distinguishes(left: tuple[Any, ...], right: tuple[Any, ...]) -> None:
    assert digest(*left) != digest(*right)


def test_digest_ignores_key_order_and_survives_surrogates() -> None:
    assert digest({"a": 1, "b": 2}) == digest({"b": 2, "a": 1})
    assert len(digest({"s": "\ud800"})) == 64
    assert digest() == hashlib.sha256(b"[]").hexdigest()


@pytest.mark.parametrize(("part", "exc"), [(float("inf"), ValueError), (object(), TypeError)])
def test_digest_rejects_non_json(part: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        digest(part)


def test_digest_binds_a_sealed_state() -> None:
    sealer = Sealer([KEY_A])
    bound = digest("add", {"a": 1}, "alice")
    token = sealer.seal("requestState", {"bind": bound, "step": 1})
    state = sealer.unseal("requestState", token)
    assert state["bind"] == digest("add", {"a": 1}, "alice")
    assert state["bind"] != digest("add", {"a": 1}, "mallory")
    assert json.loads(json.dumps(state)) == state
