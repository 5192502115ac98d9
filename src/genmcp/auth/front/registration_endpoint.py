"""``/register``: RFC 7591 dynamic client registration over HTTP.

A source address registers within its bound (``limits.Gate``: else 429, or 503 store-wide,
with ``Retry-After``); the body is read bounded (``wire.read_body``) and must be one JSON
object whose members each come once (``json.loads`` would keep the last of a repeated one,
so ``redirect_uris`` could be smuggled past a reader that takes the first); the rules of the
metadata are ``registration.ClientRegistry``'s. A registered client is 201 with its document.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from genmcp.auth.front.limits import Gate, Throttled
from genmcp.auth.front.registration import ClientRegistry, RegistrationError
from genmcp.auth.front.wire import NO_STORE, oauth_error, read_body, retry_later

__all__ = ["RegistrationEndpoint"]

log = logging.getLogger("genmcp.auth.front")


class RegistrationEndpoint:
    """``POST /register`` of an ``AuthorizationFront``: its gate, its client table, and how
    a request's source is keyed (``AuthorizationFront(source=...)``)."""

    def __init__(
        self, gate: Gate, registry: ClientRegistry, source: Callable[[Request], str]
    ) -> None:
        self.gate, self.registry, self.source = gate, registry, source

    async def register(self, request: Request) -> Response:
        """Register the client the body describes: 201 with its document, or the error."""
        try:
            await self.gate.register(self.source(request))
        except Throttled as exc:
            log.info("registration refused: %s", exc.description)
            return retry_later(oauth_error("temporarily_unavailable", exc.description,
                                           exc.status), exc)  # fmt: skip
        body = await read_body(request)
        if body is None:
            return oauth_error("invalid_client_metadata", "the registration request is too large")
        try:
            metadata = json.loads(body, object_pairs_hook=_once)
        except _Repeated as exc:
            return oauth_error("invalid_client_metadata", f"{exc} is repeated")
        except ValueError:
            return oauth_error("invalid_client_metadata", "the body is not JSON")
        if not isinstance(metadata, dict):
            return oauth_error("invalid_client_metadata", "the body is not a JSON object")
        try:
            client = await self.registry.register(metadata)
        except RegistrationError as exc:
            log.info("registration refused: %s", exc.error)
            return oauth_error(exc.error, exc.description, exc.status)
        log.info("client registered: %s", client.client_id)
        return JSONResponse(client.document(), status_code=201, headers=NO_STORE)


class _Repeated(ValueError):
    """A JSON object names a member twice (the message names it)."""


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose members are each named once (``json.loads`` keeps the last)."""
    members = dict(pairs)
    if len(members) != len(pairs):
        names = [name for name, _ in pairs]
        raise _Repeated(next(name for name in names if names.count(name) > 1))
    return members
