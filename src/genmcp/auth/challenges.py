"""RFC 6750 / RFC 9728 bearer challenges: the ``WWW-Authenticate`` value and the response.

A :class:`Challenge` is one refusal: its HTTP status (401, 403 or 400), the RFC 6750
``error`` (None when no credentials were sent, RFC 6750 §3.1), the scopes the operation
needs and the ``resource_metadata`` URL (RFC 9728 §5.1); its ``scheme`` is ``Bearer``, or
``DPoP`` (RFC 9449 §7.1: with ``algs``, and the errors ``invalid_dpop_proof`` and
``use_dpop_nonce``). :func:`quote` escapes every value
into an RFC 9110 quoted-string, dropping what a header cannot carry (CR, LF, controls,
non-ASCII), so a tool named ``x", scope="admin`` cannot add or change a parameter.

The body is JSON-RPC shaped (the request's id, or null when the body was not read).

Pure: no asyncio, no web framework.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from genmcp.errors import INVALID_REQUEST

__all__ = ["Challenge", "quote", "www_authenticate"]

_MESSAGES: Final = {
    None: "Unauthorized: a bearer token is required",
    "invalid_token": "Unauthorized: invalid access token",
    "insufficient_scope": "Forbidden: insufficient scope",
    "invalid_request": "Bad Request: malformed Authorization header",
    "invalid_dpop_proof": "Unauthorized: invalid DPoP proof",
    "use_dpop_nonce": "Unauthorized: the DPoP proof needs the server's nonce",
}
_STATUS: Final = {
    None: 401,
    "invalid_token": 401,
    "insufficient_scope": 403,
    "invalid_request": 400,
    "invalid_dpop_proof": 401,
    "use_dpop_nonce": 401,
}


def quote(value: str) -> str:
    """``value`` as a quoted-string: ``\\`` and ``"`` escaped, non-printable ASCII dropped."""
    kept = "".join(ch for ch in value if " " <= ch <= "~")
    return '"' + kept.replace("\\", "\\\\").replace('"', '\\"') + '"'


def www_authenticate(params: Iterable[tuple[str, str]], scheme: str = "Bearer") -> str:
    """``Bearer name="value", ...`` from parameter pairs (names are ours, values escaped)."""
    rendered = ", ".join(f"{name}={quote(value)}" for name, value in params)
    return f"{scheme} {rendered}" if rendered else scheme


@dataclass(frozen=True, slots=True)
class Challenge:
    """One refusal of a request for want of (good enough) credentials.

    Attributes:
        error: ``None`` (no credentials), ``"invalid_token"``, ``"insufficient_scope"``,
            ``"invalid_request"``, ``"invalid_dpop_proof"`` or ``"use_dpop_nonce"``.
        scopes: every scope the operation needs (the ``scope`` parameter).
        resource_metadata: the protected resource metadata URL.
        description: ``error_description``: a fixed, safe sentence (never a token).
        scheme: ``Bearer`` or ``DPoP``.
        algs: a DPoP challenge's ``algs`` (the proof algorithms taken), or None.
    """

    error: str | None
    scopes: tuple[str, ...]
    resource_metadata: str
    description: str | None = None
    scheme: str = "Bearer"
    algs: str | None = None

    @property
    def status(self) -> int:
        """401, 403 or 400."""
        return _STATUS[self.error]

    def header(self) -> str:
        """The ``WWW-Authenticate`` value."""
        params: list[tuple[str, str]] = []
        if self.error is not None:
            params.append(("error", self.error))
            if self.description:
                params.append(("error_description", self.description))
        if self.scopes:
            params.append(("scope", " ".join(self.scopes)))
        params.append(("resource_metadata", self.resource_metadata))
        if self.algs is not None:
            params.append(("algs", self.algs))
        return www_authenticate(params, self.scheme)

    def body(self, request_id: Any = None) -> dict[str, Any]:
        """A JSON-RPC error response carrying the same facts as the header."""
        data: dict[str, Any] = {"error": self.error or "unauthorized"}
        if self.scopes:
            data["scope"] = " ".join(self.scopes)
        data["resource_metadata"] = self.resource_metadata
        message = _MESSAGES[self.error]
        if self.description:
            message = f"{message}: {self.description}"
        error = {"code": INVALID_REQUEST, "message": message, "data": data}
        if request_id is None:  # before the body: no id (the MCP schemas allow none, not null)
            return {"jsonrpc": "2.0", "error": error}
        return {"jsonrpc": "2.0", "id": request_id, "error": error}

    def answer(self, request_id: Any = None) -> tuple[dict[str, Any], int, list[tuple[str, str]]]:
        """``(body, status, headers)`` for the transport."""
        return self.body(request_id), self.status, [("www-authenticate", self.header())]
