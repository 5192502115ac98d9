"""genmcp.sealing.encrypted: AES-256-GCM tokens that say nothing of what they carry.

The ``v2.`` tokens of requestState and resource cursors (``encrypt=True``): opaque, every bit
authenticated, purpose-, audience- and age-bound like the signed ones, and a list of keys for
rotation (the first encrypts, every one decrypts).
"""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

from genmcp.sealing import MAX_TOKEN_CHARS, SEALED_PREFIX, Sealer, SealError
from genmcp.sealing.encrypted import ciphers, decrypt, encrypt

KEY_A = "a" * 40
KEY_B = "b" * 40
SECRET = "the-tool-kept-this-secret-4242"
VECTOR_KEYS = [b"genmcp fixed test vector key one!", b"genmcp fixed test vector key two!"]
PAYLOAD = {"tool": "add", "n": [1, 2.5, None, True], "s": "h\u00e9"}
MINTED = (
    "v2.bzkWI8n2k_2W6OjitIqbSvAhAYHISjw9t4ukCPx-qna96uh80WHRkMH7XHE82VSxa2Aal0DW9t9V9lioes8JHpD8"
    "IfvJxn7FSDk2daKdJdPDLrHrhgye1igz1SUIJ2vs"
)
MINTED_FOR_WEATHER = (
    "v2.sxbV0lc_2KmwyJLY5UMHudQg661DBpiOU6zqELLMNh2KHGtZz8QiuBXdBAD7CunoikLEsAFLPIdq9_2L3EPAICsS"
    "tQnnXxKPsCPa3GxV1UiyONEoaFs-XGtkMD4LXSywuiZfO3o"
)
"""Encrypted by genmcp.sealing as one module (before the package), on 2026-12-07: they open."""


def raw(token: str) -> bytes:
    body = token[len(SEALED_PREFIX) :]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def reason_of(sealer: Sealer, token: Any, purpose: str = "requestState", **kw: Any) -> str:
    with pytest.raises(SealError) as info:
        sealer.unseal(purpose, token, encrypted=True, **kw)
    return info.value.reason


def test_tokens_minted_before_the_package_still_open() -> None:
    forever = 10.0**10
    sealer = Sealer(VECTOR_KEYS)
    assert sealer.unseal("requestState", MINTED, encrypted=True, max_age_s=forever) == PAYLOAD
    weather = Sealer(VECTOR_KEYS[1:], audience="weather")
    assert weather.unseal("cursor", MINTED_FOR_WEATHER, encrypted=True, max_age_s=forever) == (
        PAYLOAD
    )
    kept = {"max_age_s": forever}  # fixed vectors age: only their keys and audience matter
    assert reason_of(Sealer(VECTOR_KEYS[:1]), MINTED_FOR_WEATHER, "cursor", **kept) == "tampered"
    assert reason_of(Sealer(VECTOR_KEYS), MINTED_FOR_WEATHER, "cursor", **kept) == "audience"


def test_one_cipher_per_key_and_the_first_encrypts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.75)
    by_kid = ciphers([KEY_A.encode(), KEY_B.encode(), KEY_A.encode()])
    assert len(by_kid) == 2 and all(len(kid) == 4 for kid in by_kid)
    token = encrypt(by_kid, "salt", "srv", {"n": 1})
    assert raw(token)[:4] == next(iter(by_kid))
    issued_at, audience, payload = decrypt(by_kid, "p", "salt", token, False)
    assert (issued_at, audience, payload) == (1_800_000_000, "srv", {"n": 1})
    with pytest.raises(SealError, match="does not decrypt"):
        decrypt(by_kid, "p", "another salt", token, False)


@pytest.mark.parametrize(
    "payload", [{"s": SECRET, "n": [1, 2.5, None]}, "", 0, None, {"u": "Zürich \ud800"}]
)
def test_round_trip_and_opaque(payload: Any) -> None:
    sealer = Sealer([KEY_A], audience="srv")
    token = sealer.seal("requestState", payload, encrypt=True)
    assert token.startswith("v2.") and "." not in token[3:]
    assert Sealer([KEY_A], audience="srv").unseal("requestState", token, encrypted=True) == payload
    blob = raw(token)
    for leak in (SECRET.encode(), b"srv", b'"s"', b"Z\xc3\xbcrich"):
        assert leak not in blob


def test_two_seals_of_one_payload_differ() -> None:
    sealer = Sealer([KEY_A])
    assert sealer.seal("p", {"s": 1}, encrypt=True) != sealer.seal("p", {"s": 1}, encrypt=True)


def test_every_bit_is_authenticated() -> None:
    sealer = Sealer([KEY_A])
    token = sealer.seal("requestState", {"s": SECRET}, encrypt=True)
    blob = raw(token)
    for index in range(len(blob)):
        for bit in (0x01, 0x80):
            flipped = bytearray(blob)
            flipped[index] ^= bit
            forged = SEALED_PREFIX + base64.urlsafe_b64encode(bytes(flipped)).rstrip(b"=").decode()
            assert reason_of(sealer, forged) == "tampered", (index, bit)


def test_purpose_audience_and_format_are_checked() -> None:
    sealer = Sealer([KEY_A], audience="one")
    token = sealer.seal("requestState", 1, encrypt=True)
    assert reason_of(sealer, token, purpose="cursor:resources/list") == "tampered"
    assert reason_of(Sealer([KEY_A], audience="two"), token) == "audience"
    assert reason_of(Sealer([KEY_B], audience="one"), token) == "tampered"  # unknown key
    signed = sealer.seal("requestState", 1)
    assert reason_of(sealer, signed) == "malformed"  # a signed token is no encrypted one
    with pytest.raises(SealError):
        sealer.unseal("requestState", token)  # nor the other way round
    for bad in (7, "", "v2.", "v2.abc", "v2.a.b", "v2." + "A" * MAX_TOKEN_CHARS, token + "="):
        assert reason_of(sealer, bad) == "malformed", bad
    for length in (1, 5, 4 * 20 + 1):  # no base64 is 1 mod 4 characters long: not the format
        assert reason_of(sealer, "v2." + "A" * length) == "malformed", length
    assert reason_of(sealer, token[:-1] + ("B" if token[-1] != "B" else "C")) in {
        "tampered",
        "malformed",
    }


def test_rotation_the_first_key_encrypts_every_key_decrypts() -> None:
    old = Sealer([KEY_A]).seal("requestState", {"v": 1}, encrypt=True)
    rotated = Sealer([KEY_B, KEY_A])
    assert rotated.unseal("requestState", old, encrypted=True) == {"v": 1}
    new = rotated.seal("requestState", {"v": 2}, encrypt=True)
    assert Sealer([KEY_B]).unseal("requestState", new, encrypted=True) == {"v": 2}
    assert reason_of(Sealer([KEY_A]), new) == "tampered"  # retired after rotation


def test_age_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A], max_age_s=50)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now - 100)
    token = sealer.seal("requestState", 1, encrypt=True)
    monkeypatch.setattr(time, "time", lambda: now + 3600)
    future = sealer.seal("requestState", 1, encrypt=True)
    monkeypatch.undo()
    assert reason_of(sealer, token) == "expired"
    assert sealer.unseal("requestState", token, encrypted=True, max_age_s=200) == 1
    assert reason_of(sealer, future) == "expired"  # dated past the clock skew


def test_an_ephemeral_key_says_how_to_fix_an_unknown_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GENMCP_SECRET_KEY", raising=False)
    token = Sealer.from_config().seal("requestState", 1, encrypt=True)
    with pytest.raises(SealError, match="GENMCP_SECRET_KEY"):
        Sealer.from_config().unseal("requestState", token, encrypted=True)
