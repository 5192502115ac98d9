"""The signed format: ``v1.`` tokens, HMAC-SHA256 through itsdangerous.

The token after ``v1.`` is itsdangerous's ``[.]payload.timestamp.signature`` (a leading ``.``
marks a zlib-compressed payload), each part URL-safe base64. The payload is readable by anyone
holding the token; the signature, salted with the purpose, makes it unalterable. itsdangerous
signs with the LAST key it is given and verifies with all of them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from genmcp.sealing.tokens import TOKEN_PREFIX, SealError, token_body

if TYPE_CHECKING:
    from itsdangerous import URLSafeTimedSerializer

# Everything after the prefix: [.]payload.timestamp.signature in URL-safe base64 ('.' marks zlib).
_TOKEN_BODY: Final = re.compile(r"\.?[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


@functools.cache
def _itsdangerous() -> ModuleType:
    """itsdangerous, imported when the first token is sealed or opened (a server that never
    pages, pauses a call or serves legacy sessions never needs it)."""
    import itsdangerous
    import itsdangerous.encoding

    return itsdangerous


def serializer(keys: list[bytes]) -> URLSafeTimedSerializer:
    """itsdangerous's serializer for ``keys`` (current first): it signs with the first key and
    verifies with all of them."""
    made: URLSafeTimedSerializer = _itsdangerous().URLSafeTimedSerializer(
        list(reversed(keys)),
        serializer_kwargs={"allow_nan": False, "ensure_ascii": True},
        signer_kwargs={"key_derivation": "hmac", "digest_method": hashlib.sha256},
    )
    return made


def sign(signer: URLSafeTimedSerializer, salt: str, payload: Any) -> str:
    """The ``v1.`` token of ``payload``, signed now for the purpose behind ``salt``."""
    return TOKEN_PREFIX + signer.dumps(payload, salt=salt)


def verify(
    signer: URLSafeTimedSerializer, purpose: str, salt: str, token: object, made_at: int | None
) -> tuple[Any, int]:
    """The payload of a ``v1.`` token and when it was signed (epoch seconds).

    ``made_at`` is when a random per-process key was made (None for configured keys): a token
    that fails to verify then gets an error saying how to share a key.

    Raises:
        SealError: ``malformed`` or ``tampered``; the age is for the caller to check.
    """
    body = token_body(purpose, token, TOKEN_PREFIX, _TOKEN_BODY)
    try:
        payload, signed_at = signer.loads(body, salt=salt, return_timestamp=True)
    except _itsdangerous().BadSignature as exc:  # evaluated only when it raised
        raise _unverified(purpose, body, made_at) from exc
    except _itsdangerous().BadData as exc:
        raise SealError("malformed", f"{purpose!r} token payload cannot be decoded") from exc
    return payload, int(signed_at.timestamp())


def _unverified(purpose: str, body: str, made_at: int | None) -> SealError:
    """The ``tampered`` error of a token whose signature does not verify."""
    if made_at is not None and _signed_at(body) < made_at:
        return SealError(
            "tampered",
            f"{purpose!r} token was signed with an unknown key: it is older than this "
            "process's random key (a restart, or another worker); set "
            "GENMCP_SECRET_KEY, shared by every process",
        )
    if made_at is not None:  # most likely another worker's random key: say the fix
        return SealError(
            "tampered",
            f"{purpose!r} token was signed with an unknown key (or altered): this "
            "process signs with a random key of its own, so another worker's tokens "
            "cannot verify; set GENMCP_SECRET_KEY, shared by every process",
        )
    return SealError(
        "tampered",
        f"{purpose!r} token has an invalid signature: it was altered, signed with an "
        "unknown key, or made for another purpose",
    )


def _signed_at(body: str) -> int:
    """The unverified signing time (epoch seconds) of a token body; large when unreadable."""
    try:
        stamp = body.rsplit(".", 2)[-2]
        return int.from_bytes(_itsdangerous().encoding.base64_decode(stamp), "big")
    except (IndexError, ValueError, _itsdangerous().BadData):
        return 2**62
