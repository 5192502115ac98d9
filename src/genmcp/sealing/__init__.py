"""Purpose-bound sealed tokens: ``requestState``, cursors, session ids.

A :class:`Sealer` turns a JSON value into a compact URL-safe string and back. The string is
signed (HMAC-SHA256 through itsdangerous), timestamped, salted with a *purpose* so a token made
for one use never verifies for another, and prefixed with ``v1.`` so the format can change.
By default tokens are signed, not encrypted: anyone holding one can read its payload, so
never put secrets in one (``encrypt=True`` seals them unreadable: AES-256-GCM, a ``v2.``
token). To bind a token to a call, put :func:`digest` of (tool, arguments, principal) in the
payload and compare it on the way back.

A sealer may carry an *audience* (the Suite gives its server name, or its ``audience=``): its
tokens hold it and only a sealer of the same audience opens them, so two servers sharing a key
never redeem each other's tokens. Only the canonical encoding of a token is accepted. Several
keys can be configured for rotation: the first one signs and encrypts, all of them verify and
decrypt.

One concept per module: ``tokens`` (errors, limits, prefixes, key and form checks),
``signed`` (the ``v1.`` format), ``encrypted`` (the ``v2.`` format), ``sealer`` (the
:class:`Sealer`), ``binding`` (:func:`digest`). The package imports nothing from the rest of
genmcp.
"""

from __future__ import annotations

from genmcp.sealing.binding import digest
from genmcp.sealing.sealer import Sealer
from genmcp.sealing.tokens import (
    CLOCK_SKEW_S,
    MAX_TOKEN_CHARS,
    MIN_KEY_BYTES,
    SEALED_PREFIX,
    TOKEN_PREFIX,
    SealError,
    WeakKeyError,
)

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
