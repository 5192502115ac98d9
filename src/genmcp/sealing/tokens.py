"""What every sealed token shares: the errors, the limits, the prefixes and the checks.

A token is a version prefix (``v1.`` signed, ``v2.`` encrypted) and URL-safe base64 in its one
canonical encoding, at most :data:`MAX_TOKEN_CHARS` characters, salted with a purpose and dated
when it was made. This module reads a token's outer form and its age, and checks the secret keys,
purposes and age limits a :class:`~genmcp.sealing.Sealer` is given; both formats build on it.
"""

from __future__ import annotations

import re
import time
from typing import Final, Literal

__all__ = [
    "CLOCK_SKEW_S",
    "MAX_TOKEN_CHARS",
    "MIN_KEY_BYTES",
    "SEALED_PREFIX",
    "TOKEN_PREFIX",
    "SealError",
    "WeakKeyError",
]

MIN_KEY_BYTES: Final = 32
"""Shortest accepted secret key, in bytes (a str key is measured as UTF-8)."""

MAX_TOKEN_CHARS: Final = 16384
"""Longest token :meth:`Sealer.seal` produces and :meth:`Sealer.unseal` reads."""

TOKEN_PREFIX: Final = "v1."
"""Version prefix of every signed token."""

SEALED_PREFIX: Final = "v2."
"""Version prefix of every encrypted token (``encrypt=True``)."""

CLOCK_SKEW_S: Final = 60.0
"""How far in the future a token's timestamp may lie (clocks of other processes)."""

SealReason = Literal["malformed", "tampered", "expired", "audience"]

KEY_FIX: Final = (
    "export GENMCP_SECRET_KEY=\"$(python -c 'import secrets; print(secrets.token_urlsafe(48))')\""
)
"""The shell line that sets a good key, quoted by every error about a missing or weak key."""

SALT_PREFIX: Final = "genmcp.sealing.v1:"
"""Prefixed to the purpose: the salt of a signed token, the associated data of an encrypted one."""

_B64_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_UNUSED_BITS: Final = {0: 0, 2: 4, 3: 2}  # unpadded length % 4 -> low bits of the last char


class SealError(Exception):
    """A token failed to unseal.

    Attributes:
        reason: ``"malformed"`` (not a token of ours at all), ``"tampered"`` (bad signature,
            unknown key, another purpose or a non-canonical encoding), ``"expired"`` (older
            than the max age) or ``"audience"`` (sealed for another audience: another server).
    """

    reason: SealReason

    def __init__(self, reason: SealReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class WeakKeyError(ValueError):
    """A secret key is too short to sign tokens safely."""


def key_bytes(key: str | bytes) -> bytes:
    """Return a key as bytes, refusing weak or wrongly typed keys."""
    if isinstance(key, str):
        # surrogateescape gives back the raw bytes of an undecodable environment variable.
        raw = key.encode("utf-8", "surrogateescape")
    elif isinstance(key, bytes):
        raw = key
    else:
        raise TypeError(f"a secret key must be str or bytes, not {type(key).__name__}")
    if len(raw) < MIN_KEY_BYTES:
        raise WeakKeyError(
            f"secret key is {len(raw)} bytes long; genmcp needs at least {MIN_KEY_BYTES} random "
            f"bytes to sign tokens. Generate one and set it, e.g.: {KEY_FIX}"
        )
    return raw


def check_max_age(max_age_s: float) -> float:
    """Return ``max_age_s`` as a float, refusing negative or non-finite values."""
    value = float(max_age_s)
    if not 0.0 <= value < float("inf"):
        raise ValueError(f"max_age_s must be a finite number >= 0, not {max_age_s!r}")
    return value


def check_purpose(purpose: str) -> str:
    """Return ``purpose``, refusing anything but a non-empty str."""
    if not isinstance(purpose, str) or not purpose:
        raise ValueError(f"purpose must be a non-empty str, not {purpose!r}")
    return purpose


def canonical_b64(segment: str) -> bool:
    """Whether an unpadded URL-safe base64 segment is the one encoding of its bytes."""
    bits = _UNUSED_BITS.get(len(segment) % 4)
    if bits is None:
        return False
    return not bits or _B64_ALPHABET.index(segment[-1]) & ((1 << bits) - 1) == 0


def token_body(purpose: str, token: object, prefix: str, body: re.Pattern[str]) -> str:
    """The part of ``token`` after ``prefix`` when it has the form ``body`` in its canonical
    encoding; a ``malformed`` (or, for a non-canonical encoding, ``tampered``) error else."""
    if not isinstance(token, str):
        raise SealError(
            "malformed", f"{purpose!r} token must be a string, not {type(token).__name__}"
        )
    if len(token) > MAX_TOKEN_CHARS:
        raise SealError(
            "malformed",
            f"{purpose!r} token is {len(token)} characters, over the limit of {MAX_TOKEN_CHARS}",
        )
    if not token.startswith(prefix):
        raise SealError("malformed", f"{purpose!r} token does not start with {prefix!r}")
    rest = token[len(prefix) :]
    if body.fullmatch(rest) is None:
        raise SealError("malformed", f"{purpose!r} token is not in the sealed token format")
    if not all(map(canonical_b64, rest.removeprefix(".").split("."))):
        raise SealError(
            "tampered", f"{purpose!r} token is not in its canonical encoding: it was altered"
        )
    return rest


def check_age(purpose: str, issued_at: int, limit: float) -> None:
    """Refuse (``expired``) a token older than ``limit`` or dated too far in the future."""
    age = int(time.time()) - issued_at
    if age > limit:
        raise SealError(
            "expired", f"{purpose!r} token expired: it is {age} s old, the limit is {limit:g} s"
        )
    if age < -CLOCK_SKEW_S:
        raise SealError(
            "expired",
            f"{purpose!r} token is dated {-age} s in the future; check the clocks of the "
            "processes sharing the key",
        )
