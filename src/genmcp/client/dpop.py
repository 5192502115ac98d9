"""``DPoP``: sender-constrained access tokens (RFC 9449) for ``OAuth(dpop=...)``.

A DPoP client holds a key pair; the authorization server binds the access token to the
public key (``cnf.jkt``), and every request that carries the token also carries a proof, a
fresh JWS signed with the key over the method and URL (and the token's hash, ``ath``). A
token stolen from a log or a proxy is useless without the key.

A server may demand a nonce it chose (§8 at the token endpoint: 400 ``use_dpop_nonce``;
§9 at the resource: 401 ``WWW-Authenticate: DPoP error="use_dpop_nonce"``), in the
``DPoP-Nonce`` response header; it may send a new one on any response. Nonces are kept per
origin and put into the next proofs for it. Imports ``client.jws`` only.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Final

import httpx

from genmcp.client.jws import PrivateKey, SigningKey, b64url

__all__ = ["NONCE_ERROR", "DPoP"]

NONCE_ERROR: Final = "use_dpop_nonce"
"""The error a server answers when a proof lacks the nonce it wants (RFC 9449 §8, §9)."""


def _origin(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


class DPoP:
    """A DPoP key and the nonces servers gave it.

    Args:
        key: the proof key: a ``SigningKey``, a private key, or one in PEM; None makes a new
            one for ``alg`` (it lives as long as this object: the tokens bound to it too).
        alg: the algorithm of a new key (``ES256`` unless the servers want another).
    """

    def __init__(self, key: SigningKey | PrivateKey | str | bytes | None = None, *,
                 alg: str = "ES256") -> None:  # fmt: skip
        if key is None:
            self.key = SigningKey.generate(alg)
        else:
            self.key = key if isinstance(key, SigningKey) else SigningKey(key)
        self._nonces: dict[str, str] = {}

    @property
    def alg(self) -> str:
        """The proofs' JWS algorithm."""
        return self.key.alg

    @property
    def thumbprint(self) -> str:
        """The key's JWK thumbprint: what a bound token's ``cnf.jkt`` must be."""
        return self.key.thumbprint()

    def proof(self, method: str, url: httpx.URL | str, *, access_token: str | None = None) -> str:
        """A fresh proof for one request (a new ``jti`` each time: a proof is never reused)."""
        url = httpx.URL(url)
        claims: dict[str, str | int] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": str(url.copy_with(query=None, fragment=None)),  # RFC 9449 §4.2: no query
            "iat": int(time.time()),
        }
        nonce = self.nonce(url)
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        return self.key.sign(claims, {"typ": "dpop+jwt", "jwk": self.key.public_jwk})

    def nonce(self, url: httpx.URL | str) -> str | None:
        """The nonce the next proof for ``url``'s origin carries, if its server gave one."""
        return self._nonces.get(_origin(httpx.URL(url)))

    def remember(self, url: httpx.URL | str, response: httpx.Response) -> None:
        """Keep the ``DPoP-Nonce`` of ``response``, if it has one, for ``url``'s origin."""
        nonce = response.headers.get("dpop-nonce")
        if nonce:
            self._nonces[_origin(httpx.URL(url))] = nonce

    def wants_retry(self, url: httpx.URL | str, sent: str | None, response: httpx.Response) -> bool:
        """True when ``response`` is a nonce challenge (RFC 9449 §8, §9) that a new proof can
        meet: the server now holds a nonce other than ``sent`` (the one the proof carried;
        concurrent requests may have learned it already)."""
        self.remember(url, response)
        if response.status_code == 401:
            challenge = response.headers.get("www-authenticate", "")
            asked = "dpop" in challenge.lower() and NONCE_ERROR in challenge
        elif response.status_code == 400:  # the token endpoint's JSON error (read by then)
            try:
                asked = NONCE_ERROR.encode() in response.content
            except httpx.ResponseNotRead:  # a streamed answer: not a token endpoint's
                return False
        else:
            return False
        return asked and self.nonce(url) not in (None, sent)
