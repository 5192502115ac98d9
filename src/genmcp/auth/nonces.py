"""``DPoPNonces``: the server-chosen ``DPoP-Nonce`` values (RFC 9449 §9), with no storage.

A nonce names a time window (``rotate_s`` long) and carries an HMAC of it under the key:
``<window>.<mac>``. Every process given the same key hands out and accepts the same nonces
without sharing a store; a new window rotates the nonce, and a proof carrying the previous
window's is still accepted (so requests in flight across a rotation pass), an older one is
stale (challenged again with the current one). A nonce from another key, or made up, fails
its MAC. Pure: hmac, hashlib, time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

__all__ = ["DPoPNonces"]


class DPoPNonces:
    """The nonces a DPoP resource (or token endpoint) demands in proofs.

    Args:
        key: the HMAC key (bytes, or text taken as UTF-8); give every process of the app the
            same one. None: a random key of this process (one process only).
        rotate_s: how long one nonce is handed out; it is accepted for one window more.
    """

    def __init__(self, key: bytes | str | None = None, *, rotate_s: float = 300.0) -> None:
        if rotate_s <= 0:
            raise ValueError("rotate_s must be positive")
        self._key = (secrets.token_bytes(32) if key is None
                     else key.encode() if isinstance(key, str) else key)  # fmt: skip
        if len(self._key) < 16:
            raise ValueError("a DPoP nonce key has at least 16 bytes")
        self.rotate_s = rotate_s

    def _window(self, at: float) -> int:
        return int(at // self.rotate_s)

    def _mac(self, window: int) -> str:
        digest = hmac.new(self._key, f"genmcp-dpop-nonce:{window}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(digest.digest()[:18]).decode("ascii")

    def current(self) -> str:
        """The nonce to hand out now."""
        return self.at(time.time())

    def at(self, when: float) -> str:
        """The nonce handed out at ``when`` (seconds since the epoch)."""
        window = self._window(when)
        return f"{window}.{self._mac(window)}"

    def accepts(self, nonce: object) -> bool:
        """True for a nonce of this key and of the current or the previous window."""
        if not isinstance(nonce, str) or len(nonce) > 64:
            return False
        window_text, _, mac = nonce.partition(".")
        if not window_text.isdigit() or len(window_text) > 16:
            return False
        window = int(window_text)
        now = self._window(time.time())
        if window not in (now, now - 1):
            return False
        return hmac.compare_digest(mac, self._mac(window))
