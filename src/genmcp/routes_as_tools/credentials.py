"""The MCP caller's credentials, carried from the MCP request into each route call.

Owns :func:`forward_credentials`, the auth dependency of an MCP router serving route tools:
on every MCP HTTP request (both eras) it records the headers to forward (``Authorization``
by default), the ``Host``, the client and server addresses and the lifespan ``state`` as a
:class:`Forwarded` under a private key of ``channel.assigns``, next to what the wrapped
``auth`` dependency returned (its challenge response, if any, still answers the request).
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

__all__ = ["FORWARDED", "SCOPE_KEY", "Forwarded", "forward_credentials", "mcp_caller"]

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
    auth: Callable[..., Any] | None = None, *, headers: Iterable[str] = ("authorization",)
) -> Callable[..., Any]:
    """An ``auth=`` dependency for ``mcp_router`` that forwards ``headers`` to route tools.

    ``auth`` (any MCP auth dependency, e.g. ``genmcp.auth.OAuthResource``) still runs
    first; its assigns are kept and its challenge still answers the request.
    """
    names = tuple(name.lower() for name in headers)
    inner = auth or _no_auth

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
        base[FORWARDED] = Forwarded(
            tuple((name, value) for name in names if (value := request.headers.get(name))),
            _origin_of(request),
        )
        return base

    authorize = getattr(auth, "authorize_message", None)
    if authorize is not None:  # OAuthResource's per-message scope check stays in force
        capture.authorize_message = authorize  # type: ignore[attr-defined]
    return capture


def _origin_of(request: Request) -> Origin:
    scope = request.scope
    state = scope.get("state")
    return Origin(
        scheme=str(scope.get("scheme", "http")),
        server=scope.get("server"),
        client=scope.get("client"),
        root_path=str(scope.get("root_path", "")),
        host=request.headers.get("host", "localhost"),
        state=dict(state) if isinstance(state, Mapping) else {},
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
