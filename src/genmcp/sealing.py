"""Purpose-bound signed tokens: ``requestState``, cursors, session ids.

A :class:`Sealer` turns a JSON value into a compact URL-safe string and back. The string is
signed (HMAC-SHA256 through itsdangerous), timestamped, salted with a *purpose* so a token made
for one use never verifies for another, and prefixed with ``v1.`` so the format can change.
By default tokens are signed, not encrypted: anyone holding one can read its payload, so
never put secrets in one (``encrypt=True`` below seals them unreadable). To bind a token to
a call, put :func:`digest` of (tool, arguments, principal) in the payload and compare it on
the way back.

A sealer may carry an *audience* (the Suite gives its server name, or its ``audience=``): its
tokens hold it and only a sealer of the same audience opens them, so two servers sharing a key
never redeem each other's tokens (reason ``"audience"``). Only the canonical encoding of a token
is accepted: base64 whose unused low bits are not zero decodes to the same bytes, and is refused.

Tokens that carry what a tool or a repository chose to keep (``requestState``, resource list
cursors) are sealed with ``encrypt=True``: AES-256-GCM (``cryptography``), an authenticated
encryption, so the client can neither read nor alter them. Such a token is ``v2.`` and one
URL-safe base64 part: a 4-byte key id, a 12-byte random nonce, then the ciphertext and tag of
``[issued_at, audience, payload]``, with the purpose as associated data. Each secret key gives
its own encryption key (HMAC-SHA256 of the secret and a fixed label) and key id.

Several keys can be configured for rotation: the first one signs and encrypts, all of them
verify and decrypt. This module imports nothing from the rest of genmcp.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from itsdangerous import URLSafeTimedSerializer

__all__ = [
    "CLOCK_SKEW_S",
    "MAX_TOKEN_CHARS",
    "MIN_KEY_BYTES",
    "SEALED_PREFIX",
    "TOKEN_PREFIX",
    "SealError",
    "Sealer",
    "WeakKeyError",
    "digest",
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

_KEY_FIX: Final = (
    "export GENMCP_SECRET_KEY=\"$(python -c 'import secrets; print(secrets.token_urlsafe(48))')\""
)
# Everything after the prefix: [.]payload.timestamp.signature in URL-safe base64 ('.' marks zlib).
_TOKEN_BODY: Final = re.compile(r"\.?[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_SALT_PREFIX: Final = "genmcp.sealing.v1:"
_B64_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_UNUSED_BITS: Final = {0: 0, 2: 4, 3: 2}  # unpadded length % 4 -> low bits of the last char

logger = logging.getLogger("genmcp")


@functools.cache
def _itsdangerous() -> ModuleType:
    """itsdangerous, imported when the first token is sealed or opened (a server that never
    pages, pauses a call or serves legacy sessions never needs it)."""
    import itsdangerous
    import itsdangerous.encoding

    return itsdangerous


@functools.cache
def _aesgcm() -> Any:
    """cryptography's AES-GCM, imported when the first encrypted token is sealed or opened."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM


_AEAD_LABEL: Final = b"genmcp.sealing.v2:aes-256-gcm"
_KID_LABEL: Final = b"genmcp.sealing.v2:key-id"
# Everything after the prefix: one URL-safe base64 part (never 1 mod 4 characters long).
_AEAD_BODY: Final = re.compile(r"(?:[A-Za-z0-9_-]{4})*[A-Za-z0-9_-]{2,4}")
_KID_BYTES: Final = 4
_NONCE_BYTES: Final = 12
_TAG_BYTES: Final = 16


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


def _signed_at(body: str) -> int:
    """The unverified signing time (epoch seconds) of a token body; large when unreadable."""
    try:
        stamp = body.rsplit(".", 2)[-2]
        return int.from_bytes(_itsdangerous().encoding.base64_decode(stamp), "big")
    except (IndexError, ValueError, _itsdangerous().BadData):
        return 2**62


class WeakKeyError(ValueError):
    """A secret key is too short to sign tokens safely."""


def _key_bytes(key: str | bytes) -> bytes:
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
            f"bytes to sign tokens. Generate one and set it, e.g.: {_KEY_FIX}"
        )
    return raw


def _check_max_age(max_age_s: float) -> float:
    """Return ``max_age_s`` as a float, refusing negative or non-finite values."""
    value = float(max_age_s)
    if not 0.0 <= value < float("inf"):
        raise ValueError(f"max_age_s must be a finite number >= 0, not {max_age_s!r}")
    return value


def _canonical_b64(segment: str) -> bool:
    """Whether an unpadded URL-safe base64 segment is the one encoding of its bytes."""
    bits = _UNUSED_BITS.get(len(segment) % 4)
    if bits is None:
        return False
    return not bits or _B64_ALPHABET.index(segment[-1]) & ((1 << bits) - 1) == 0


def _check_purpose(purpose: str) -> str:
    """Return ``purpose``, refusing anything but a non-empty str."""
    if not isinstance(purpose, str) or not purpose:
        raise ValueError(f"purpose must be a non-empty str, not {purpose!r}")
    return purpose


class Sealer:
    """Seals JSON payloads into signed, timestamped, purpose-bound tokens.

    Attributes:
        max_age_s: Default age limit of :meth:`unseal`, in seconds (timestamps have one-second
            resolution).
        ephemeral: True when the key was generated at random for this process (see
            :meth:`from_config`).
        audience: Who the tokens are for (None: no audience); tokens of another audience
            are refused.
    """

    max_age_s: float
    ephemeral: bool
    audience: str | None

    def __init__(
        self,
        secret_keys: Sequence[str | bytes],
        *,
        max_age_s: float = 1200.0,
        audience: str | None = None,
    ) -> None:
        """Create a sealer.

        Args:
            secret_keys: The keys, current first: the first one signs, every one verifies.
                Each must be at least :data:`MIN_KEY_BYTES` bytes.
            max_age_s: Default age limit of :meth:`unseal`, in seconds.
            audience: Sealed into every token and required of every token opened; all the
                processes that must share tokens give the same one.

        Raises:
            ValueError: No keys were given, or ``max_age_s`` is negative.
            WeakKeyError: A key is shorter than :data:`MIN_KEY_BYTES` bytes.
            TypeError: A key is neither str nor bytes, ``secret_keys`` is a single key, or
                ``audience`` is not a str.
        """
        if isinstance(secret_keys, str | bytes):
            raise TypeError("secret_keys must be a sequence of keys; wrap a single key in a list")
        keys = [_key_bytes(key) for key in secret_keys]
        if not keys:
            raise ValueError("Sealer needs at least one secret key")
        self.max_age_s = _check_max_age(max_age_s)
        self.ephemeral = False
        self.made_at = int(time.time())  # a token signed before this is not this key's
        if audience is not None and not isinstance(audience, str):
            raise TypeError(f"audience must be a str or None, not {type(audience).__name__}")
        self.audience = audience
        self._keys = keys

    @functools.cached_property
    def _serializer(self) -> URLSafeTimedSerializer:
        """itsdangerous's serializer, made on first use: it signs with the LAST key and
        verifies with all of them."""
        serializer: URLSafeTimedSerializer = _itsdangerous().URLSafeTimedSerializer(
            list(reversed(self._keys)),
            serializer_kwargs={"allow_nan": False, "ensure_ascii": True},
            signer_kwargs={"key_derivation": "hmac", "digest_method": hashlib.sha256},
        )
        return serializer

    def __repr__(self) -> str:
        return (
            f"Sealer(max_age_s={self.max_age_s!r}, ephemeral={self.ephemeral!r}, "
            f"audience={self.audience!r})"
        )

    @classmethod
    def from_config(
        cls,
        secret_key: str | bytes | Sequence[str | bytes] | None = None,
        *,
        env: str = "GENMCP_SECRET_KEY",
        max_age_s: float = 1200.0,
        audience: str | None = None,
    ) -> Sealer:
        """Create a sealer from explicit keys, the environment, or a random per-process key.

        Args:
            secret_key: One key or a list of keys (current first). Wins when given.
            env: Environment variable read otherwise: one key, or a comma-separated list
                (current first) for rotation.
            max_age_s: Default age limit of :meth:`unseal`, in seconds.
            audience: See :class:`Sealer`.

        Returns:
            A :class:`Sealer`. Without any configured key it signs with a random key and has
            ``ephemeral`` set, and a warning is logged on the ``genmcp`` logger: its tokens do
            not survive a restart and do not verify in other processes.

        Raises:
            ValueError: An explicit empty list of keys was given.
            WeakKeyError: A configured key is too short.
        """
        if secret_key is not None:
            if isinstance(secret_key, str | bytes):
                return cls([secret_key], max_age_s=max_age_s, audience=audience)
            return cls(secret_key, max_age_s=max_age_s, audience=audience)
        configured = [key.strip() for key in os.environ.get(env, "").split(",")]
        keys = [key for key in configured if key]
        if keys:
            return cls(keys, max_age_s=max_age_s, audience=audience)
        logger.warning(
            "%s is not set: genmcp signs tokens (requestState, cursors, session ids) with a "
            "random key made for this process only. Tokens will not survive a restart and will "
            "not verify in other processes or workers. Set a key shared by all processes, "
            "e.g.: %s",
            env,
            _KEY_FIX.replace("GENMCP_SECRET_KEY", env, 1),
        )
        sealer = cls([secrets.token_bytes(MIN_KEY_BYTES)], max_age_s=max_age_s, audience=audience)
        sealer.ephemeral = True
        return sealer

    def seal(self, purpose: str, payload: Any, *, encrypt: bool = False) -> str:
        """Sign (or encrypt) a JSON payload for one purpose.

        Args:
            purpose: What the token is for, e.g. ``"requestState"``; only :meth:`unseal` with
                the same purpose accepts it.
            payload: Any JSON value. Signed only, it is readable by whoever holds the token;
                encrypted, it is not.
            encrypt: Seal with AES-256-GCM (a ``v2.`` token) instead of signing.

        Returns:
            The token: ``v1.`` followed by URL-safe base64 parts separated by dots.

        Raises:
            ValueError: The purpose is empty, the payload holds NaN or an infinity, or the
                token would exceed :data:`MAX_TOKEN_CHARS` characters.
            TypeError: The payload is not JSON-serializable.
        """
        salt = _SALT_PREFIX + _check_purpose(purpose)
        if encrypt:
            token = self._encrypt(salt, payload)
        else:
            if self.audience is not None:
                payload = {"aud": self.audience, "v": payload}
            token = TOKEN_PREFIX + self._serializer.dumps(payload, salt=salt)
        if len(token) > MAX_TOKEN_CHARS:
            raise ValueError(
                f"sealed {purpose!r} token is {len(token)} characters, over the limit of "
                f"{MAX_TOKEN_CHARS}; keep the payload small (store bulk data elsewhere and seal "
                "a handle to it)"
            )
        return token

    def unseal(
        self, purpose: str, token: str, *, max_age_s: float | None = None, encrypted: bool = False
    ) -> Any:
        """Verify a token made by :meth:`seal` for ``purpose`` and return its payload.

        Args:
            purpose: The purpose the token must have been sealed for.
            token: The token, untrusted.
            max_age_s: Age limit in seconds; defaults to the sealer's ``max_age_s``.
            encrypted: The token must be an encrypted one (``seal(..., encrypt=True)``); a
                signed token is then refused, and the other way round.

        Returns:
            The payload.

        Raises:
            SealError: ``reason`` is ``"malformed"`` for anything that is not a well-formed
                token (wrong type, prefix or characters, too long, undecodable payload),
                ``"tampered"`` for a bad signature, an unknown key or another purpose, and
                ``"expired"`` for a token older than the age limit (or dated more than
                :data:`CLOCK_SKEW_S` seconds in the future), ``"audience"`` for a token this
                sealer's audience did not seal.
            ValueError: ``purpose`` is empty or ``max_age_s`` is negative.
        """
        salt = _SALT_PREFIX + _check_purpose(purpose)
        limit = self.max_age_s if max_age_s is None else _check_max_age(max_age_s)
        if encrypted:
            return self._decrypt(purpose, salt, token, limit)
        body = _token_body(purpose, token, TOKEN_PREFIX, _TOKEN_BODY)
        try:
            payload, signed_at = self._serializer.loads(body, salt=salt, return_timestamp=True)
        except _itsdangerous().BadSignature as exc:  # evaluated only when it raised
            if self.ephemeral and _signed_at(body) < self.made_at:
                raise SealError(
                    "tampered",
                    f"{purpose!r} token was signed with an unknown key: it is older than this "
                    "process's random key (a restart, or another worker); set "
                    "GENMCP_SECRET_KEY, shared by every process",
                ) from exc
            if self.ephemeral:  # most likely another worker's random key: say the fix
                raise SealError(
                    "tampered",
                    f"{purpose!r} token was signed with an unknown key (or altered): this "
                    "process signs with a random key of its own, so another worker's tokens "
                    "cannot verify; set GENMCP_SECRET_KEY, shared by every process",
                ) from exc
            raise SealError(
                "tampered",
                f"{purpose!r} token has an invalid signature: it was altered, signed with an "
                "unknown key, or made for another purpose",
            ) from exc
        except _itsdangerous().BadData as exc:
            raise SealError("malformed", f"{purpose!r} token payload cannot be decoded") from exc
        _check_age(purpose, int(signed_at.timestamp()), limit)
        return payload if self.audience is None else self._opened(purpose, payload)

    @functools.cached_property
    def _ciphers(self) -> dict[bytes, Any]:
        """Key id -> AES-256-GCM cipher, one per secret key; the first one encrypts."""
        ciphers: dict[bytes, Any] = {}
        for key in self._keys:
            kid = hmac.new(key, _KID_LABEL, hashlib.sha256).digest()[:_KID_BYTES]
            ciphers.setdefault(kid, _aesgcm()(hmac.new(key, _AEAD_LABEL, hashlib.sha256).digest()))
        return ciphers

    def _encrypt(self, salt: str, payload: Any) -> str:
        kid, cipher = next(iter(self._ciphers.items()))
        plain = json.dumps(
            [int(time.time()), self.audience, payload],
            separators=(",", ":"),
            allow_nan=False,
            ensure_ascii=False,
        ).encode("utf-8", "surrogatepass")
        nonce = secrets.token_bytes(_NONCE_BYTES)
        sealed = kid + nonce + cipher.encrypt(nonce, plain, salt.encode())
        return SEALED_PREFIX + base64.urlsafe_b64encode(sealed).rstrip(b"=").decode()

    def _decrypt(self, purpose: str, salt: str, token: object, limit: float) -> Any:
        body = _token_body(purpose, token, SEALED_PREFIX, _AEAD_BODY)
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        if len(raw) < _KID_BYTES + _NONCE_BYTES + _TAG_BYTES:
            raise SealError("malformed", f"{purpose!r} token is too short")
        kid, nonce = raw[:_KID_BYTES], raw[_KID_BYTES : _KID_BYTES + _NONCE_BYTES]
        cipher = self._ciphers.get(kid)
        if cipher is None:
            if self.ephemeral:
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
        _check_age(purpose, int(issued_at), limit)
        if audience != self.audience:
            raise self._other_audience(purpose)
        return payload

    def _other_audience(self, purpose: str) -> SealError:
        return SealError(
            "audience",
            f"{purpose!r} token was issued for another server (audience mismatch; this "
            f"server's audience is {self.audience!r})",
        )

    def _opened(self, purpose: str, envelope: Any) -> Any:
        """The payload inside an audience envelope, or an ``audience`` :class:`SealError`."""
        if (
            not isinstance(envelope, dict)
            or envelope.keys() != {"aud", "v"}
            or envelope["aud"] != self.audience
        ):
            raise self._other_audience(purpose)
        return envelope["v"]


def _token_body(purpose: str, token: object, prefix: str, body: re.Pattern[str]) -> str:
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
    if not all(map(_canonical_b64, rest.removeprefix(".").split("."))):
        raise SealError(
            "tampered", f"{purpose!r} token is not in its canonical encoding: it was altered"
        )
    return rest


def _check_age(purpose: str, issued_at: int, limit: float) -> None:
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


def digest(*parts: Any) -> str:
    """Return the SHA-256 hex digest of the canonical JSON of ``parts``.

    Canonical JSON: keys sorted, no whitespace, non-ASCII kept as UTF-8. Used to bind a token
    to what it was made for, e.g. ``digest(tool_name, arguments, principal)``.

    Args:
        *parts: JSON values (dict keys must be str).

    Returns:
        64 lowercase hex characters.

    Raises:
        TypeError: A part is not JSON-serializable.
        ValueError: A part holds NaN or an infinity.
    """
    canonical = json.dumps(
        list(parts), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    # surrogatepass: lone surrogates (legal in JSON strings) must not crash the hash.
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
