"""genmcp.sealing.signed: ``v1.`` tokens, readable and unalterable; keys, rotation, tampering."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from itsdangerous import TimestampSigner
from itsdangerous.encoding import base64_decode, base64_encode

from genmcp.sealing import Sealer, SealError
from genmcp.sealing.tokens import SALT_PREFIX
from tests.sealing.sealing_kit import ENV, KEY_A, KEY_B, KEY_C, at, reason_of

VECTOR_KEYS = [b"genmcp fixed test vector key one!", b"genmcp fixed test vector key two!"]
PAYLOAD = {"tool": "add", "n": [1, 2.5, None, True], "s": "h\u00e9"}
MINTED = (
    "v1.eyJ0b29sIjoiYWRkIiwibiI6WzEsMi41LG51bGwsdHJ1ZV0sInMiOiJoXHUwMGU5In0.axZnMQ."
    "vTXbMvA65svOArQHha2D4HoHonErrlT9QJRtcDkiKm4"
)
MINTED_FOR_WEATHER = (
    "v1.eyJhdWQiOiJ3ZWF0aGVyIiwidiI6eyJ0b29sIjoiYWRkIiwibiI6WzEsMi41LG51bGwsdHJ1ZV0sInMiOiJoXHUw"
    "MGU5In19.axZnMQ.vM9Y2hgKj8M6zG7mGokKpqu9YO2lM0zL81DGADb7gZk"
)
"""Signed by genmcp.sealing as one module (before the package), on 2026-12-07: they still open."""


def test_tokens_minted_before_the_package_still_open() -> None:
    forever = 10.0**10
    assert Sealer(VECTOR_KEYS).unseal("requestState", MINTED, max_age_s=forever) == PAYLOAD
    weather = Sealer(VECTOR_KEYS[1:], audience="weather")
    assert weather.unseal("session", MINTED_FOR_WEATHER, max_age_s=forever) == PAYLOAD
    wrong_key = Sealer(VECTOR_KEYS[1:])  # fixed vectors age: only the key may decide here
    assert reason_of(wrong_key, "requestState", MINTED, max_age_s=forever) == "tampered"


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


def test_well_formed_garbage_is_tampered() -> None:
    assert reason_of(Sealer([KEY_A]), "requestState", "v1.abc.def.ghi") == "tampered"


def test_signed_but_undecodable_payload_is_malformed() -> None:
    signer = TimestampSigner(
        KEY_A,
        salt=SALT_PREFIX + "requestState",
        key_derivation="hmac",
        digest_method=hashlib.sha256,
    )
    body = signer.sign(base64_encode(b"{not json")).decode("ascii")
    assert reason_of(Sealer([KEY_A]), "requestState", "v1." + body) == "malformed"


def test_tampered_wins_over_expired(monkeypatch: pytest.MonkeyPatch) -> None:
    sealer = Sealer([KEY_A], max_age_s=1)
    at(monkeypatch, -1000)
    token = sealer.seal("requestState", 1)
    monkeypatch.undo()
    assert reason_of(sealer, "cursor", token) == "tampered"


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


def test_a_random_key_says_why_a_token_does_not_verify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    other = Sealer.from_config()
    at(monkeypatch, -100)
    before = other.seal("p", 1)  # dated before the next sealer's key was made
    monkeypatch.undo()
    monkeypatch.delenv(ENV, raising=False)
    mine = Sealer.from_config()
    with pytest.raises(SealError, match="older than this process's random key") as old:
        mine.unseal("p", before)
    with pytest.raises(SealError, match="another worker's tokens") as now:
        mine.unseal("p", other.seal("p", 1))
    assert old.value.reason == now.value.reason == "tampered"
    with pytest.raises(SealError, match="invalid signature"):
        Sealer([KEY_A]).unseal("p", other.seal("p", 1))
