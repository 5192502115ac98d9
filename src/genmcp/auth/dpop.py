"""``DPoPPolicy``: DPoP proofs checked by a protected resource or a token endpoint (RFC 9449).

A DPoP-bound access token names the public key it is bound to (``cnf.jkt``, its RFC 7638
thumbprint); each request that carries it also carries a proof, a JWS signed by that key
over the request. :meth:`DPoPPolicy.verify` checks one proof as RFC 9449 §4.3 lists:
exactly one ``DPoP`` header; a compact JWS with ``typ: dpop+jwt``, an algorithm of the
allow-list (never ``none`` nor a MAC), a public ``jwk`` (no private members) of the
algorithm's key type and curve, and a signature that key verifies; ``htm`` the request's
method; ``htu`` one of the request's URIs (query and fragment ignored, compared in canonical
form); ``iat`` within ``iat_window_s`` of now; ``ath`` the base64url SHA-256 of the access
token; the ``nonce`` the server gave (``DPoPNonces``) when it demands one; and a ``jti``
never seen before in its window (``ProofReplays``: one process's memory, or Redis for every
process behind a load balancer). The proof's key thumbprint is returned for the caller to
compare with the token's ``cnf.jkt``.

A refusal is :class:`DPoPProblem`: ``invalid_dpop_proof`` or ``use_dpop_nonce`` (RFC 9449
§12.2), with a safe description. Verification is PyJWT's (the ``auth`` extra).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import jwt

from genmcp.auth.nonces import DPoPNonces
from genmcp.auth.tokens import canonical_uri
from genmcp.storage import ProofReplays, WithReplays
from genmcp.storage.memory.replays import MemoryProofReplays

__all__ = ["ALGORITHMS", "DPoPPolicy", "DPoPProblem", "Proof", "bound_key", "jwk_thumbprint"]

ALGORITHMS: Final = ("ES256", "ES384", "ES512", "PS256", "RS256", "EdDSA")
"""The asymmetric JWS algorithms a proof may be signed with (the default allow-list)."""
_KEY_TYPES: Final = {"ES256": ("EC", "P-256"), "ES384": ("EC", "P-384"),
                     "ES512": ("EC", "P-521"), "PS256": ("RSA", None),
                     "RS256": ("RSA", None), "EdDSA": ("OKP", "Ed25519")}  # fmt: skip
_THUMBPRINT_MEMBERS: Final = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"),
                              "OKP": ("crv", "kty", "x")}  # fmt: skip
_PRIVATE: Final = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
_MAX_PROOF: Final = 8192
_DECODE: Final = {"verify_exp": False, "verify_nbf": False, "verify_iat": False,
                  "verify_aud": False, "verify_iss": False}  # fmt: skip


class DPoPProblem(Exception):
    """A proof refused: ``error`` is ``invalid_dpop_proof`` or ``use_dpop_nonce``; the
    message is safe to send (never the proof)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error, self.description = error, description


@dataclass(frozen=True, slots=True)
class Proof:
    """A proof that passed: its key's thumbprint (``jkt``) and its claims."""

    jkt: str
    claims: Mapping[str, Any]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def jwk_thumbprint(jwk: Mapping[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public ``jwk`` (EC, RSA or OKP), base64url."""
    members = {name: jwk[name] for name in _THUMBPRINT_MEMBERS[jwk["kty"]]}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canonical.encode()).digest())


def bound_key(claims: Mapping[str, Any]) -> str | None:
    """The ``cnf.jkt`` a token's claims bind it to (RFC 9449 §6), or None: a bearer token."""
    cnf = claims.get("cnf")
    jkt = cnf.get("jkt") if isinstance(cnf, Mapping) else None
    return jkt if isinstance(jkt, str) else None


def _without_query(uri: str) -> str:
    parts = urlsplit(uri)
    return canonical_uri(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))


class DPoPPolicy:
    """How a resource (or the authorization front's token endpoint) takes DPoP proofs.

    Args:
        required: refuse bearer tokens altogether (only ``Authorization: DPoP``); otherwise
            both schemes are taken, but a DPoP-bound token is never taken as a bearer one.
        algorithms: the JWS algorithms proofs may use (a subset of :data:`ALGORITHMS`).
        iat_window_s: how far a proof's ``iat`` may be from now, either way (clock skew
            plus the request's time in flight); its ``jti`` is remembered twice that long.
        nonces: demand server nonces (``DPoPNonces``: the same key in every process); None:
            proofs need none.
        replays: where the ``jti`` of each proof is kept: a ``ProofReplays``, or a storage
            bundle with one (``WithReplays``: ``RedisStores``, every process sees every
            proof); None: this process's memory.
    """

    def __init__(
        self,
        *,
        required: bool = False,
        algorithms: Iterable[str] = ALGORITHMS,
        iat_window_s: float = 60.0,
        nonces: DPoPNonces | None = None,
        replays: ProofReplays | WithReplays | None = None,
    ) -> None:
        self.required = required
        self.algorithms = tuple(algorithms)
        unknown = [alg for alg in self.algorithms if alg not in _KEY_TYPES]
        if unknown or not self.algorithms:
            raise ValueError(f"DPoP algorithms are some of {', '.join(ALGORITHMS)}, not "
                             f"{', '.join(unknown) or 'none'}")  # fmt: skip
        if iat_window_s <= 0:
            raise ValueError("iat_window_s must be positive")
        self.iat_window_s = iat_window_s
        self.nonces = nonces
        if replays is None:
            replays = MemoryProofReplays()
        elif isinstance(replays, WithReplays) and not isinstance(replays, ProofReplays):
            replays = replays.replays
        if not isinstance(replays, ProofReplays):
            raise TypeError("DPoPPolicy(replays=...) takes a ProofReplays or a storage "
                            "bundle with one (MemoryStores, RedisStores)")  # fmt: skip
        self.replays: ProofReplays = replays

    @property
    def algs(self) -> str:
        """The ``algs`` parameter of a ``WWW-Authenticate: DPoP`` challenge."""
        return " ".join(self.algorithms)

    async def verify(
        self,
        proofs: Sequence[str],
        method: str,
        uris: Iterable[str],
        access_token: str | None = None,
    ) -> Proof:
        """The checked proof of a request; :class:`DPoPProblem` when it is refused.

        ``proofs``: every ``DPoP`` header value; ``uris``: the URIs the request may name
        (as received, and the configured one behind a proxy); ``access_token``: the token
        the request presents (``ath``), None at a token endpoint.
        """
        if len(proofs) != 1:
            raise DPoPProblem("invalid_dpop_proof", "send exactly one DPoP header")
        header, claims = self._decode(proofs[0].strip())
        if claims.get("htm") != method.upper():
            raise DPoPProblem("invalid_dpop_proof", "htm is not the request's method")
        htu = claims.get("htu")
        if not isinstance(htu, str) or _without_query(htu) not in {
            _without_query(uri) for uri in uris
        }:
            raise DPoPProblem("invalid_dpop_proof", "htu is not the request's URI")
        iat = claims.get("iat")
        if (not isinstance(iat, int | float) or isinstance(iat, bool)
                or abs(time.time() - iat) > self.iat_window_s):  # fmt: skip
            raise DPoPProblem("invalid_dpop_proof", "iat is missing or out of the window")
        if access_token is not None:
            ath = _b64url(hashlib.sha256(access_token.encode("ascii")).digest())
            if claims.get("ath") != ath:
                raise DPoPProblem("invalid_dpop_proof", "ath is not the access token's hash")
        if self.nonces is not None and not self.nonces.accepts(claims.get("nonce")):
            raise DPoPProblem("use_dpop_nonce", "the proof needs the server's current nonce")
        jkt = jwk_thumbprint(header["jwk"])
        seen = hashlib.sha256(f"{jkt}\n{claims['jti']}".encode()).hexdigest()
        if not await self.replays.first(seen, 2 * self.iat_window_s + 1):
            raise DPoPProblem("invalid_dpop_proof", "the proof was used before (jti)")
        return Proof(jkt, claims)

    def _decode(self, proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The header and claims of a proof whose signature its own ``jwk`` verifies."""
        if not proof or len(proof) > _MAX_PROOF:
            raise DPoPProblem("invalid_dpop_proof", "the proof is empty or too long")
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError:
            raise DPoPProblem("invalid_dpop_proof", "the proof is not a JWS") from None
        if str(header.get("typ", "")).lower() != "dpop+jwt":
            raise DPoPProblem("invalid_dpop_proof", "typ is not dpop+jwt")
        alg, jwk = header.get("alg"), header.get("jwk")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise DPoPProblem("invalid_dpop_proof", f"alg is not one of {self.algs}")
        if not isinstance(jwk, dict) or _PRIVATE & jwk.keys():
            raise DPoPProblem("invalid_dpop_proof", "jwk is missing or holds a private key")
        kty, crv = _KEY_TYPES[alg]
        if jwk.get("kty") != kty or (crv is not None and jwk.get("crv") != crv):
            raise DPoPProblem("invalid_dpop_proof", f"jwk is not a {crv or kty} key for {alg}")
        if any(not isinstance(jwk.get(name), str) for name in _THUMBPRINT_MEMBERS[kty]):
            raise DPoPProblem("invalid_dpop_proof", "jwk lacks a member of its key type")
        if kty == "RSA" and len(jwk["n"]) < 342:  # 2048 bits: 256 bytes, 342 in base64url
            raise DPoPProblem("invalid_dpop_proof", "an RSA key has at least 2048 bits")
        try:
            key = jwt.PyJWK(jwk, alg)
            claims = jwt.decode(proof, key, algorithms=[alg], options=_DECODE)  # type: ignore[arg-type]
        except (jwt.PyJWTError, ValueError, TypeError):
            raise DPoPProblem("invalid_dpop_proof", "the signature does not verify") from None
        jti = claims.get("jti")
        if not isinstance(jti, str) or not 0 < len(jti) <= 256:
            raise DPoPProblem("invalid_dpop_proof", "jti is missing or too long")
        return header, claims
