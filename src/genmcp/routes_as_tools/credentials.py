"""The MCP caller's credentials, carried from the MCP request into each route call.

Owns :func:`forward_credentials`, the auth of an MCP router serving route tools (a FastAPI
dependency, as a ``transports.http.auth.DependencyAuth``): on every MCP HTTP request (both
eras) it records the headers to forward (``Authorization`` by default), the ``Host``,
the client and server addresses and the lifespan ``state`` as a :class:`Forwarded` under
a private key of ``channel.assigns``, next to what the wrapped ``auth`` dependency returned
(its challenge response, if any, still answers the request). Route tools served by any
router need no such wrapper: :func:`caller_of` reads the same from the HTTP request a call
is answering (``channel.http_request``), so ``route_tools(app)`` mixed into any Suite keeps
the caller.
:func:`mcp_caller` is the dependency a route uses to see who called it through MCP.

The forwarded values never print: :class:`Forwarded`'s repr names the headers, not their
values. Imports FastAPI and Starlette (so do the package's face and its builder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from fastapi import Depends
from starlette.requests import Request
from starlette.responses import Response

from genmcp.routes_as_tools.exchange import Origin
from genmcp.transports.http.auth import Auth, DependencyAuth, as_auth

__all__ = [
    "FORWARDED",
    "SCOPE_KEY",
    "Forwarded",
    "caller_of",
    "forward_credentials",
    "mcp_caller",
]

FORWARDED: Final = "genmcp.routes.forwarded"
"""The ``channel.assigns`` key holding the :class:`Forwarded` of an MCP request."""
SCOPE_KEY: Final = "genmcp.mcp"
"""The ASGI ``scope["extensions"]`` key a route call carries: ``{"assigns": ...}``."""


@dataclass(frozen=True, slots=True, repr=False)
class Forwarded:
    """What one MCP request hands to the route calls it makes."""

    headers: tuple[tuple[str, str], ...] = ()
    origin: Origin = field(default_factory=Origin)

    def __repr__(self) -> str:
        return f"Forwarded(headers={[name for name, _ in self.headers]})"


def _no_auth() -> None:
    return None


def forward_credentials(
    auth: Auth | Callable[..., Any] | None = None, *, headers: Iterable[str] = ("authorization",)
) -> Auth:
    """An ``auth=`` for ``mcp_router`` that forwards ``headers`` to route tools.

    ``auth`` (any MCP auth, e.g. ``genmcp.auth.OAuthResource``) still runs first, as a
    FastAPI dependency; its assigns are kept, its challenge still answers the request and
    its per-message check (an ``OAuthResource``'s tool scopes) stays in force.
    """
    names = tuple(name.lower() for name in headers)
    wrapped = as_auth(auth)
    inner = _no_auth if wrapped is None else wrapped.dependency

    async def capture(request: Request, assigns: Any = Depends(inner)) -> Any:
        if isinstance(assigns, Response):
            return assigns
        base: dict[str, Any] = (
            {}
            if assigns is None
            else dict(assigns)
            if isinstance(assigns, Mapping)
            else {"principal": assigns}
        )
        base[FORWARDED] = caller_of(request, names)
        return base

    return DependencyAuth(capture, None if wrapped is None else wrapped.message_check)


def caller_of(request: Any, names: Iterable[str]) -> Forwarded:
    """What an MCP HTTP request hands its route calls: the headers ``names`` (lower case)
    it carries, its Host, addresses and lifespan state. ``request`` is a Starlette request
    (``channel.http_request``: both eras, stdio's stand-in request too)."""
    scope = request.scope
    headers = request.headers
    state = scope.get("state")
    forwarded = tuple((name, value) for name in names if (value := headers.get(name)))
    scheme = str(scope.get("scheme", "http"))
    return Forwarded(
        forwarded,
        Origin(
            scheme=scheme if scheme in ("http", "https") else "http",  # stdio's stand-in: http
            server=scope.get("server"),
            client=scope.get("client"),
            root_path=str(scope.get("root_path", "")),
            host=headers.get("host", "localhost"),
            state=dict(state) if isinstance(state, Mapping) else {},
        ),
    )


def mcp_caller(request: Request) -> Mapping[str, Any] | None:
    """A route dependency: the MCP caller's assigns when an MCP tool call runs the route.

    None for an ordinary HTTP request (a network client cannot set it). The assigns are
    what the MCP auth dependency returned (``principal``, ``scopes`` ...).
    """
    carried = request.scope.get("extensions", {}).get(SCOPE_KEY)
    if isinstance(carried, Mapping):
        assigns = carried.get("assigns")
        return assigns if isinstance(assigns, Mapping) else None
    return None
