"""``Auth``: how an MCP endpoint learns who calls it, and ``DependencyAuth``, a plain FastAPI
dependency in that shape.

An ``Auth`` has three parts, each read once when the router is built (never per request):

* ``request_check``: run by the endpoint for every HTTP request, before the body is read;
  the caller's assigns, or a refusal ``(JSON-RPC body, HTTP status, headers)`` to send.
  None when the auth runs only as a FastAPI dependency (an API route then runs it).
* ``message_check``: run for every parsed JSON-RPC request, before the Suite and before
  any stream opens; None, or the refusal. None when there is no such check.
* ``dependency``: the FastAPI dependency form, run by an API route (``mcp_router`` with
  ``dependencies=``, or an auth without a request check) and once by stdio.

An auth may also give headers for every response to the request it let through: the
assigns entry :data:`RESPONSE_HEADERS` (``(name, value)`` pairs; ``OAuthResource`` sends a
rotated ``DPoP-Nonce`` this way). The endpoint takes the entry out of the assigns before
anything else reads them (a tool never sees it) and adds the headers to the answer.

``genmcp.auth.OAuthResource`` has all three. A plain dependency passed as
``mcp_router(auth=...)`` becomes a ``DependencyAuth`` (``as_auth``). Without auth the
endpoint calls nothing.

Pure: no web framework import (an ASGI scope is a mutable mapping here).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, runtime_checkable

from genmcp.protocol.jsonrpc import Request

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = [
    "RESPONSE_HEADERS",
    "Auth",
    "DependencyAuth",
    "MessageCheck",
    "Refusal",
    "RequestCheck",
    "as_auth",
]

RESPONSE_HEADERS: Final = "genmcp.response_headers"
"""The assigns entry of headers (``(name, value)`` pairs) an auth adds to every response to
the request it let through; the endpoint removes it from the assigns (see module)."""

Refusal: TypeAlias = tuple[dict[str, Any], int, list[tuple[str, str]]]
"""A refusal as ``(JSON-RPC body, HTTP status, headers)``, for the transport to send."""

RequestCheck: TypeAlias = Callable[
    [MutableMapping[str, Any], "Suite"], Awaitable["Mapping[str, Any] | Refusal"]
]
"""``await check(scope, suite)``: the caller's assigns, or the refusal to send."""

MessageCheck: TypeAlias = Callable[[Request, Mapping[str, Any], "Suite"], "Refusal | None"]
"""``check(message, assigns, suite)``: None, or the refusal (403 for missing scopes)."""


@runtime_checkable
class Auth(Protocol):
    """What ``mcp_router(auth=...)`` takes, besides a plain FastAPI dependency."""

    @property
    def request_check(self) -> RequestCheck | None:
        """The check of each HTTP request before its body is read, or None (see module)."""

    @property
    def message_check(self) -> MessageCheck | None:
        """The check of each parsed JSON-RPC request, or None."""

    @property
    def dependency(self) -> Callable[..., Any]:
        """The FastAPI dependency: its value (a mapping, or any value as
        ``{"principal": value}``) is ``channel.assigns``; a Starlette ``Response`` answers
        the request instead."""

    async def aclose(self) -> None:
        """At shutdown (the router's lifespan): release what the auth holds open (a
        verifier's pooled HTTP client). Subclass ``Auth`` to inherit this no-op."""
        return None


@dataclass(frozen=True, slots=True)
class DependencyAuth:
    """A FastAPI dependency as an ``Auth``: it runs in the endpoint's API route.

    ``message_check``, when given, still checks each parsed request
    (``forward_credentials`` keeps the one of the auth it wraps).
    """

    dependency: Callable[..., Any]
    """The FastAPI dependency."""

    message_check: MessageCheck | None = None
    """The check of each parsed JSON-RPC request, or None."""

    @property
    def request_check(self) -> None:
        """None: a FastAPI dependency needs FastAPI's route, not the raw endpoint."""
        return None

    async def aclose(self) -> None:
        """Nothing to release: a dependency holds nothing open."""


def as_auth(auth: Auth | Callable[..., Any] | None) -> Auth | None:
    """``auth`` as an ``Auth``: a plain FastAPI dependency becomes a ``DependencyAuth``."""
    if auth is None or isinstance(auth, Auth):
        return auth
    if not callable(auth):
        raise TypeError(
            f"auth= takes a FastAPI dependency or an Auth (request_check, message_check, "
            f"dependency, aclose: subclass genmcp.auth.Auth for its aclose), not {auth!r}"
        )
    return DependencyAuth(auth)
