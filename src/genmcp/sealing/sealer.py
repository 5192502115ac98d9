"""The :class:`Sealer`: purpose-bound tokens under a set of keys and an audience.

A sealer turns a JSON value into a compact URL-safe token and back, in one of two formats:
signed (``v1.``, :mod:`genmcp.sealing.signed`: readable, unalterable) or encrypted (``v2.``,
:mod:`genmcp.sealing.encrypted`: ``encrypt=True``, unreadable too). It holds the keys (the first
one signs and encrypts, all of them verify and decrypt), the default age limit and the
*audience*: a signed token of a sealer with an audience carries it in an envelope
``{"aud", "v"}``, an encrypted one inside its plaintext, and only a sealer of the same audience
opens them (reason ``"audience"``).
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from genmcp.sealing import encrypted as aead
from genmcp.sealing import signed
from genmcp.sealing.tokens import (
    KEY_FIX,
    MAX_TOKEN_CHARS,
    MIN_KEY_BYTES,
    SALT_PREFIX,
    SealError,
    check_age,
    check_max_age,
    check_purpose,
    key_bytes,
)

if TYPE_CHECKING:
    from itsdangerous import URLSafeTimedSerializer

__all__ = ["Sealer"]

logger = logging.getLogger("genmcp")


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
        keys = [key_bytes(key) for key in secret_keys]
        if not keys:
            raise ValueError("Sealer needs at least one secret key")
        self.max_age_s = check_max_age(max_age_s)
        self.ephemeral = False
        self.made_at = int(time.time())  # a token signed before this is not this key's
        if audience is not None and not isinstance(audience, str):
            raise TypeError(f"audience must be a str or None, not {type(audience).__name__}")
        self.audience = audience
        self._keys = keys

    @functools.cached_property
    def _serializer(self) -> URLSafeTimedSerializer:
        """The signed format's serializer, made on first use."""
        return signed.serializer(self._keys)

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
            KEY_FIX.replace("GENMCP_SECRET_KEY", env, 1),
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
        salt = SALT_PREFIX + check_purpose(purpose)
        if encrypt:
            token = aead.encrypt(self._ciphers, salt, self.audience, payload)
        else:
            if self.audience is not None:
                payload = {"aud": self.audience, "v": payload}
            token = signed.sign(self._serializer, salt, payload)
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
        salt = SALT_PREFIX + check_purpose(purpose)
        limit = self.max_age_s if max_age_s is None else check_max_age(max_age_s)
        if encrypted:
            issued_at, audience, payload = aead.decrypt(
                self._ciphers, purpose, salt, token, self.ephemeral
            )
            check_age(purpose, issued_at, limit)
            if audience != self.audience:
                raise self._other_audience(purpose)
            return payload
        made_at = self.made_at if self.ephemeral else None
        payload, signed_at = signed.verify(self._serializer, purpose, salt, token, made_at)
        check_age(purpose, signed_at, limit)
        return payload if self.audience is None else self._opened(purpose, payload)

    @functools.cached_property
    def _ciphers(self) -> dict[bytes, Any]:
        """The encrypted format's ciphers by key id, made on first use."""
        return aead.ciphers(self._keys)

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
