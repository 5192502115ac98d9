"""Tests for genmcp.sealing: round trips, tampering, expiry, rotation, key config, digest."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import time
from typing import Any

import pytest
from itsdangerous import TimestampSigner
from itsdangerous.encoding import base64_decode, base64_encode

from genmcp import sealing
from genmcp.sealing import (
    MAX_TOKEN_CHARS,
    MIN_KEY_BYTES,
    Sealer,
    SealError,
    WeakKeyError,
    digest,
)

KEY_A = "a" * 40
KEY_B = "b" * 40
KEY_C = b"\x00" * 32
ENV = "GENMCP_SECRET_KEY"


def at(monkeypatch: pytest.MonkeyPatch, offset_s: int) -> None:
    """Make itsdangerous stamp new tokens ``offset_s`` seconds away from now."""
    stamp = int(time.time()) + offset_s
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: stamp)


def reason_of(sealer: Sealer, purpose: str, token: Any, **kwargs: Any) -> str:
    with pytest.raises(SealError) as info:
        sealer.unseal(purpose, token, **kwargs)
    assert str(info.value)
    return info.value.reason


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize(
    "payload",
    [
        {"tool": "add", "args": {"a": 1, "b": [1.5, None, True]}},
        [],
        "plain",
        0,
        None,
        {"unicode": "Zürich ☃ 日本"},
        {"lone surrogate": "\ud800"},
        {"long": "x" * 5000},
    ],
    ids=["object", "empty-list", "str", "zero", "null", "unicode", "surrogate", "compressible"],
)
def test_round_trip(payload: Any) -> None:
    sealer = Sealer([KEY_A])
    token = sealer.seal("requestState", payload)
    assert token.startswith("v1.")
    assert re.fullmatch(r"v1\.\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){2}", token)
    assert sealer.unseal("requestState", token) == payload
    assert Sealer([KEY_A]).unseal("requestState", token) == payload  # another process


def test_tokens_are_signed_not_encrypted() -> None:
    token = Sealer([KEY_A]).seal("cursor", {"offset": 40})
    body = token[3:].split(".")[0]
    assert b"offset" in base64_decode(body)


# ---------------------------------------------------------------------------- tampering


def test_purpose_mismatch_is_tampered() -> None:
    sealer = Sealer([KEY_A])
    token = sealer.seal("requestState", {"n": 1})
    assert reason_of(sealer, "cursor", token) == "tampered"
    assert reason_of(sealer, "requeststate", token) == "tampered"


def _flip(token: str, index: int) -> str:
    char = token[index]
    return token[:index] + ("A" if char != "A" else "B") + token[index + 1 :]


@pytest.mark.parametrize("part", [0, 1, 2], ids=["payload", "timestamp", "signature"])
def test_modified_token_is_tampered(part: int) -> None:
    sealer = Sealer([KEY_A])
    token = sealer.seal("requestState", {"n": 1, "who": "alice"})
    pieces = token[3:].split(".")
    # Change a character in the middle of the part: the last base64 character may only
    # carry padding bits and decode to the same bytes.
    offset = 3 + sum(len(p) + 1 for p in pieces[:part]) + len(pieces[part]) // 2
    assert reason_of(sealer, "requestState", _flip(token, offset)) == "tampered"


def test_swapped_payload_is_tampered() -> None:
    sealer = Sealer([KEY_A])
    mine = sealer.seal("requestState", {"who": "alice"}).split(".")
    theirs = sealer.seal("requestState", {"who": "mallory"}).split(".")
    forged = ".".join([mine[0], theirs[1], *mine[2:]])
    assert reason_of(sealer, "requestState", forged) == "tampered"


LONG = "v1." + "a" * MAX_TOKEN_CHARS


@pytest.mark.parametrize(
    "token",
    [
        123,
        None,
        b"v1.abc.def.ghi",
        "",
        "v1.",
        "v2.abc.def.ghi",
        "abc.def.ghi",
        "v1.abc",
        "v1.abc.def",
        "v1.abc..ghi",
        "v1.abc.def.ghi.",
        "v1.ab c.def.ghi",
        "v1.abc.def.gh=",
        "v1.\u00e9bc.def.ghi",
        "v1.abc.def.ghi\n",
        LONG,
    ],
    ids=lambda t: repr(t)[:24],
)
def test_malformed(token: Any) -> None:
    assert reason_of(Sealer([KEY_A]), "requestState", token) == "malformed"


def test_well_formed_garbage_is_tampered() -> None:
    assert reason_of(Sealer([KEY_A]), "requestState", "v1.abc.def.ghi") == "tampered"


def test_signed_but_undecodable_payload_is_malformed() -> None:
    signer = TimestampSigner(
        KEY_A,
        salt=sealing._SALT_PREFIX + "requestState",
        key_derivation="hmac",
        digest_method=hashlib.sha256,
    )
    body = signer.sign(base64_encode(b"{not json")).decode("ascii")
    assert reason_of(Sealer([KEY_A]), "requestState", "v1." + body) == "malformed"


def test_seal_error_carries_reason_and_message() -> None:
    error = SealError("expired", "token expired")
    assert error.reason == "expired"
    assert str(error) == "token expired"
    assert isinstance(error, Exception)


# ---------------------------------------------------------------------------- expiry


def test_expired(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A], max_age_s=50)
    at(monkeypatch, -100)
    token = sealer.seal("requestState", {"n": 1})
    monkeypatch.undo()
    assert reason_of(sealer, "requestState", token) == "expired"
    assert reason_of(sealer, "requestState", token, max_age_s=99) == "expired"
    assert sealer.unseal("requestState", token, max_age_s=101) == {"n": 1}
    assert Sealer([KEY_A]).unseal("requestState", token) == {"n": 1}  # default 1200 s


def test_max_age_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A])
    at(monkeypatch, -1)
    token = sealer.seal("requestState", 1)
    monkeypatch.undo()
    assert reason_of(sealer, "requestState", token, max_age_s=0) == "expired"


def test_expires_in_real_time() -> None:
    sealer = Sealer([KEY_A], max_age_s=0)
    token = sealer.seal("requestState", 1)
    time.sleep(1.1)
    assert reason_of(sealer, "requestState", token) == "expired"


def test_small_clock_skew_is_tolerated(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A], max_age_s=10)
    at(monkeypatch, 30)
    ahead = sealer.seal("requestState", "ahead")
    at(monkeypatch, 3600)
    far_ahead = sealer.seal("requestState", "far")
    monkeypatch.undo()
    assert sealer.unseal("requestState", ahead) == "ahead"
    assert reason_of(sealer, "requestState", far_ahead) == "expired"


def test_tampered_wins_over_expired(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A], max_age_s=1)
    at(monkeypatch, -1000)
    token = sealer.seal("requestState", 1)
    monkeypatch.undo()
    assert reason_of(sealer, "cursor", token) == "tampered"


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_bad_max_age(bad: float) -> None:
    with pytest.raises(ValueError, match="max_age_s"):
        Sealer([KEY_A], max_age_s=bad)
    with pytest.raises(ValueError, match="max_age_s"):
        Sealer([KEY_A]).unseal("p", "v1.a.b.c", max_age_s=bad)


# ---------------------------------------------------------------------------- rotation


def test_rotation() -> None:
    old = Sealer([KEY_A])
    old_token = old.seal("cursor", {"page": 2})
    rotated = Sealer([KEY_B, KEY_A])
    assert rotated.unseal("cursor", old_token) == {"page": 2}
    new_token = rotated.seal("cursor", {"page": 3})
    assert Sealer([KEY_B]).unseal("cursor", new_token) == {"page": 3}  # first key signs
    assert reason_of(old, "cursor", new_token) == "tampered"
    assert reason_of(Sealer([KEY_B]), "cursor", old_token) == "tampered"  # old key retired


def test_unknown_key_is_tampered() -> None:
    token = Sealer([KEY_C]).seal("cursor", 1)
    assert reason_of(Sealer([KEY_A, KEY_B]), "cursor", token) == "tampered"


def test_str_and_bytes_keys_agree() -> None:
    token = Sealer([KEY_A]).seal("p", 1)
    assert Sealer([KEY_A.encode()]).unseal("p", token) == 1


# ---------------------------------------------------------------------------- keys


@pytest.mark.parametrize(
    "keys",
    [["short"], ["x" * (MIN_KEY_BYTES - 1)], [KEY_A, "old-and-weak"], ["é" * 15 + "a"], [b""]],
    ids=["short", "31-bytes", "weak-old-key", "31-utf8-bytes", "empty-bytes"],
)
def test_weak_key(keys: list[str | bytes]) -> None:
    with pytest.raises(WeakKeyError) as info:
        Sealer(keys)
    message = str(info.value)
    assert f"at least {MIN_KEY_BYTES}" in message
    assert "export GENMCP_SECRET_KEY=" in message
    assert "secrets.token_urlsafe(48)" in message
    assert isinstance(info.value, ValueError)


def test_key_length_boundary() -> None:
    Sealer(["x" * MIN_KEY_BYTES])
    Sealer(["é" * 16])  # 16 characters, 32 UTF-8 bytes


def test_key_list_errors() -> None:
    with pytest.raises(ValueError, match="at least one secret key"):
        Sealer([])
    with pytest.raises(TypeError, match="sequence of keys"):
        Sealer(KEY_A)
    with pytest.raises(TypeError, match="str or bytes"):
        Sealer([12345])  # type: ignore[list-item]


def test_repr_hides_keys() -> None:
    assert KEY_A not in repr(Sealer([KEY_A]))


@pytest.mark.parametrize("purpose", ["", None, 3])
def test_purpose_must_be_a_non_empty_str(purpose: Any) -> None:
    sealer = Sealer([KEY_A])
    with pytest.raises(ValueError, match="purpose"):
        sealer.seal(purpose, 1)
    with pytest.raises(ValueError, match="purpose"):
        sealer.unseal(purpose, "v1.a.b.c")


@pytest.mark.parametrize(("payload", "exc"), [(float("nan"), ValueError), ({1, 2}, TypeError)])
def test_seal_rejects_non_json(payload: Any, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        Sealer([KEY_A]).seal("p", payload)


def test_seal_refuses_oversize_tokens() -> None:
    with pytest.raises(ValueError, match=f"over the limit of {MAX_TOKEN_CHARS}"):
        Sealer([KEY_A]).seal("p", secrets.token_hex(MAX_TOKEN_CHARS * 2))


# ---------------------------------------------------------------------------- from_config


def test_from_config_explicit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY_B)
    single = Sealer.from_config(KEY_A, max_age_s=5)
    assert not single.ephemeral
    assert single.max_age_s == 5
    assert Sealer([KEY_A]).unseal("p", single.seal("p", 1)) == 1  # explicit wins over env
    listed = Sealer.from_config([KEY_B, KEY_A])
    assert Sealer([KEY_B]).unseal("p", listed.seal("p", 2)) == 2
    assert Sealer.from_config(KEY_C).unseal("p", Sealer([KEY_C]).seal("p", 3)) == 3
    with pytest.raises(ValueError, match="at least one secret key"):
        Sealer.from_config([])
    with pytest.raises(WeakKeyError):
        Sealer.from_config("weak")


def test_from_config_env(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(ENV, KEY_A)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        sealer = Sealer.from_config()
    assert not sealer.ephemeral
    assert caplog.records == []
    assert Sealer([KEY_A]).unseal("p", sealer.seal("p", 1)) == 1


def test_from_config_env_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    old_token = Sealer([KEY_A]).seal("p", "old")
    monkeypatch.setenv(ENV, f" {KEY_B} , {KEY_A},")
    sealer = Sealer.from_config()
    assert sealer.unseal("p", old_token) == "old"
    assert Sealer([KEY_B]).unseal("p", sealer.seal("p", "new")) == "new"


def test_from_config_custom_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("MY_KEYS", KEY_A)
    sealer = Sealer.from_config(env="MY_KEYS")
    assert not sealer.ephemeral
    assert Sealer([KEY_A]).unseal("p", sealer.seal("p", 1)) == 1


def test_from_config_env_weak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "changeme")
    with pytest.raises(WeakKeyError, match="8 bytes long"):
        Sealer.from_config()


@pytest.mark.parametrize("value", [None, "", " , "], ids=["unset", "empty", "blank-list"])
def test_from_config_ephemeral(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        first = Sealer.from_config(max_age_s=7)
    assert first.ephemeral
    assert first.max_age_s == 7
    [record] = caplog.records
    assert record.name == "genmcp"
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    assert "GENMCP_SECRET_KEY" in message
    assert "restart" in message
    assert "other processes" in message
    assert "secrets.token_urlsafe(48)" in message
    assert first.unseal("p", first.seal("p", 1)) == 1
    second = Sealer.from_config()
    assert reason_of(second, "p", first.seal("p", 1)) == "tampered"


def test_ephemeral_warning_names_custom_env(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("MY_KEYS", raising=False)
    with caplog.at_level(logging.WARNING, logger="genmcp"):
        Sealer.from_config(env="MY_KEYS")
    assert "export MY_KEYS=" in caplog.records[0].getMessage()


# ---------------------------------------------------------------------------- digest


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
