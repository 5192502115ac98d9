"""The encrypted format: ``v2.`` tokens, AES-256-GCM through ``cryptography``.

After ``v2.`` comes one URL-safe base64 part: a 4-byte key id, a 12-byte random nonce, then the
ciphertext and tag of the JSON ``[issued_at, audience, payload]``, with the purpose's salt as
associated data. The client can neither read nor alter such a token. Each secret key gives its
own encryption key (HMAC-SHA256 of the secret and a fixed label) and key id; the first key
encrypts, every key decrypts.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import re
import secrets
import time
from typing import Any, Final

from genmcp.sealing.tokens import SEALED_PREFIX, SealError, token_body

_AEAD_LABEL: Final = b"genmcp.sealing.v2:aes-256-gcm"
_KID_LABEL: Final = b"genmcp.sealing.v2:key-id"
# Everything after the prefix: one URL-safe base64 part (never 1 mod 4 characters long).
_AEAD_BODY: Final = re.compile(r"(?:[A-Za-z0-9_-]{4})*[A-Za-z0-9_-]{2,4}")
_KID_BYTES: Final = 4
_NONCE_BYTES: Final = 12
_TAG_BYTES: Final = 16


@functools.cache
def _aesgcm() -> Any:
    """cryptography's AES-GCM, imported when the first encrypted token is sealed or opened."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM


def ciphers(keys: list[bytes]) -> dict[bytes, Any]:
    """Key id -> AES-256-GCM cipher, one per secret key; the first one encrypts."""
    made: dict[bytes, Any] = {}
    for key in keys:
        kid = hmac.new(key, _KID_LABEL, hashlib.sha256).digest()[:_KID_BYTES]
        made.setdefault(kid, _aesgcm()(hmac.new(key, _AEAD_LABEL, hashlib.sha256).digest()))
    return made


def encrypt(by_kid: dict[bytes, Any], salt: str, audience: str | None, payload: Any) -> str:
    """The ``v2.`` token of ``payload`` for ``audience``, dated now, under the first cipher."""
    kid, cipher = next(iter(by_kid.items()))
    plain = json.dumps(
        [int(time.time()), audience, payload],
        separators=(",", ":"),
        allow_nan=False,
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = kid + nonce + cipher.encrypt(nonce, plain, salt.encode())
    return SEALED_PREFIX + base64.urlsafe_b64encode(sealed).rstrip(b"=").decode()


def decrypt(
    by_kid: dict[bytes, Any], purpose: str, salt: str, token: object, ephemeral: bool
) -> tuple[int, Any, Any]:
    """``(issued_at, audience, payload)`` of a ``v2.`` token; age and audience are the caller's.

    ``ephemeral``: the keys are a random per-process key, so an unknown key id gets an error
    saying how to share a key.

    Raises:
        SealError: ``malformed`` or ``tampered``.
    """
    body = token_body(purpose, token, SEALED_PREFIX, _AEAD_BODY)
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    if len(raw) < _KID_BYTES + _NONCE_BYTES + _TAG_BYTES:
        raise SealError("malformed", f"{purpose!r} token is too short")
    kid, nonce = raw[:_KID_BYTES], raw[_KID_BYTES : _KID_BYTES + _NONCE_BYTES]
    cipher = by_kid.get(kid)
    if cipher is None:
        if ephemeral:
            raise SealError(
                "tampered",
                f"{purpose!r} token was sealed with an unknown key: not this process's "
                "random key (a restart, or another worker); set GENMCP_SECRET_KEY, shared "
                "by every process",
            )
        raise SealError("tampered", f"{purpose!r} token was sealed with an unknown key")
    try:
        plain = cipher.decrypt(nonce, raw[_KID_BYTES + _NONCE_BYTES :], salt.encode())
    except Exception as exc:  # cryptography's InvalidTag: altered, or another purpose
        raise SealError(
            "tampered",
            f"{purpose!r} token does not decrypt: it was altered or made for another purpose",
        ) from exc
    try:
        issued_at, audience, payload = json.loads(plain)
    except (ValueError, TypeError) as exc:  # sealed by us, so never; but be precise
        raise SealError("malformed", f"{purpose!r} token payload cannot be decoded") from exc
    return int(issued_at), audience, payload
