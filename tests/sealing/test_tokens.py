"""genmcp.sealing.tokens: the errors, the outer form, the age limit, the key and purpose checks."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from genmcp.sealing import MAX_TOKEN_CHARS, MIN_KEY_BYTES, Sealer, SealError, WeakKeyError
from genmcp.sealing.tokens import (
    CLOCK_SKEW_S,
    TOKEN_PREFIX,
    canonical_b64,
    check_age,
    key_bytes,
    token_body,
)
from tests.sealing.sealing_kit import KEY_A, at, reason_of

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


def test_seal_error_carries_reason_and_message() -> None:
    error = SealError("expired", "token expired")
    assert error.reason == "expired"
    assert str(error) == "token expired"
    assert isinstance(error, Exception)


def test_canonical_encoding_only() -> None:
    assert canonical_b64("QQ") and canonical_b64("QUI") and canonical_b64("QUJD")
    assert not canonical_b64("QR")  # decodes to the bytes of "QQ": its 4 unused bits are set
    assert not canonical_b64("QUJ")  # likewise "QUI", 2 unused bits
    assert not canonical_b64("Q")  # no base64 is 1 mod 4 characters long
    form = re.compile(r"[A-Za-z0-9_-]+")
    assert token_body("p", "v1.QUI", TOKEN_PREFIX, form) == "QUI"
    with pytest.raises(SealError) as info:
        token_body("p", "v1.QUJ", TOKEN_PREFIX, form)
    assert info.value.reason == "tampered"
    assert "canonical" in str(info.value)


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


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_bad_max_age(bad: float) -> None:
    with pytest.raises(ValueError, match="max_age_s"):
        Sealer([KEY_A], max_age_s=bad)
    with pytest.raises(ValueError, match="max_age_s"):
        Sealer([KEY_A]).unseal("p", "v1.a.b.c", max_age_s=bad)


def test_check_age_bounds() -> None:
    now = int(time.time())
    check_age("p", now - 10, 10)
    check_age("p", now + int(CLOCK_SKEW_S) - 1, 0)
    for issued_at, limit in ((now - 12, 10), (now + int(CLOCK_SKEW_S) + 5, 10)):
        with pytest.raises(SealError) as info:
            check_age("p", issued_at, limit)
        assert info.value.reason == "expired"


# ---------------------------------------------------------------------------- keys and purposes


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


def test_key_bytes_keeps_undecodable_environment_bytes() -> None:
    raw = b"\xff" * MIN_KEY_BYTES
    assert key_bytes(raw.decode("utf-8", "surrogateescape")) == raw
    assert key_bytes("é" * 16) == "é".encode() * 16


@pytest.mark.parametrize("purpose", ["", None, 3])
def test_purpose_must_be_a_non_empty_str(purpose: Any) -> None:
    sealer = Sealer([KEY_A])
    with pytest.raises(ValueError, match="purpose"):
        sealer.seal(purpose, 1)
    with pytest.raises(ValueError, match="purpose"):
        sealer.unseal(purpose, "v1.a.b.c")
