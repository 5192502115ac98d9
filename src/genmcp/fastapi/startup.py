"""Checks an ``mcp_router`` runs when the app starts: mistakes that otherwise fail quietly.

* Two MCP endpoints routed at the same path: the second is shadowed by the first and
  never answers. Refused at startup (``RuntimeError`` naming the path).
* Several worker processes likely (``--workers N`` on the command line, or
  ``WEB_CONCURRENCY`` above 1) while tokens are signed with a random per-process key
  (every requestState, cursor and session id from another worker fails), or while 2025
  sessions live in memory (a session begun on one worker is not found on the others; a
  legacy client's answer to elicitation reaches the worker that asked only by chance); a
  shared broker with a random key. A warning on the ``genmcp`` logger with the fix.

Reads the app's routes by attribute and finds their endpoints in
``fastapi.endpoint.ENDPOINTS``: no web framework import.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from genmcp.fastapi.compat import included
from genmcp.fastapi.endpoint import ENDPOINTS, MCPEndpoint
from genmcp.storage.memory import MemoryBroker, MemorySessionRegistry

__all__ = ["check_at_startup", "duplicate_mounts", "mcp_paths", "workers_likely"]

log = logging.getLogger("genmcp")


def _endpoint_of(route: Any) -> MCPEndpoint | None:
    """The MCP endpoint a route serves (found in ``ENDPOINTS``), or None."""
    return ENDPOINTS.get(getattr(route, "endpoint", None))


def mcp_paths(
    routes: Sequence[Any], prefix: str = "", depth: int = 0
) -> Iterator[tuple[str, Any]]:
    """``(full path, endpoint)`` of every MCP route, through includes and mounts."""
    for route in routes:
        include = included(route)  # FastAPI's lazy include (fastapi.compat)
        if include is not None:
            if depth < 8:
                inner, more = include
                yield from mcp_paths(getattr(inner, "routes", ()), prefix + more, depth + 1)
            continue
        endpoint, path = _endpoint_of(route), getattr(route, "path", None)
        if endpoint is not None and isinstance(path, str):
            yield prefix + path, endpoint
        mounted = getattr(getattr(route, "app", None), "routes", None)  # a Mount
        if endpoint is None and mounted is not None and isinstance(path, str) and depth < 8:
            yield from mcp_paths(mounted, prefix + path, depth + 1)


def duplicate_mounts(routes: Sequence[Any]) -> list[str]:
    """The paths at which more than one MCP endpoint is routed."""
    seen: dict[str, Any] = {}
    clashes: list[str] = []
    for path, endpoint in mcp_paths(routes):
        first = seen.setdefault(path, endpoint)
        if first is not endpoint and path not in clashes:
            clashes.append(path)
    return clashes


def workers_likely(argv: Sequence[str] | None = None, env: Any = None) -> int:
    """How many worker processes the command line or ``WEB_CONCURRENCY`` asks for (1: one)."""
    argv = sys.argv if argv is None else argv
    env = os.environ if env is None else env
    counts = [env.get("WEB_CONCURRENCY", "1")]
    for index, item in enumerate(argv):
        if item in ("--workers", "-w") and index + 1 < len(argv):
            counts.append(argv[index + 1])
        elif item.startswith("--workers="):
            counts.append(item.partition("=")[2])
    return max((int(c) for c in counts if c.strip().isdigit()), default=1)


def check_at_startup(app: Any, endpoint: Any) -> None:
    """Run the checks of the module docstring for ``endpoint`` mounted in ``app``."""
    clashes = duplicate_mounts(getattr(app, "routes", None) or ())
    if clashes:
        raise RuntimeError(
            f"two MCP routers are mounted at {', '.join(clashes)}: the second one is never "
            "reached; give each include_router(mcp_router(...)) its own prefix, or serve "
            "every tool from one router"
        )
    shared = not isinstance(endpoint.suite.broker, MemoryBroker)
    if shared and endpoint.suite.sealer.ephemeral:
        log.warning(
            "a shared broker (several processes) but GENMCP_SECRET_KEY is not set: each "
            "process signs tokens with its own random key, so requestState, cursors and 2025 "
            "session ids from another process fail; set one GENMCP_SECRET_KEY for every process"
        )
    workers = workers_likely()
    if workers <= 1:
        return
    if endpoint.suite.sealer.ephemeral:
        log.warning(
            "%d worker processes but GENMCP_SECRET_KEY is not set: each worker signs tokens "
            "with its own random key, so requestState, cursors and session ids from another "
            "worker fail; set one GENMCP_SECRET_KEY for every worker",
            workers,
        )
    legacy = endpoint.legacy
    in_memory = legacy is not None and (
        isinstance(legacy.broker, MemoryBroker)
        or isinstance(legacy.registry, MemorySessionRegistry)
    )
    if in_memory:
        log.warning(
            "%d worker processes with 2025 sessions in memory: a session begun on one worker "
            "is 'Session not found' on the others, and a session client's answers "
            "(elicitation, sampling) and cancellations reach only the worker that got them; "
            "share them over Redis, mcp_router(..., redis_url=...) or GENMCP_REDIS_URL (see "
            "docs/guides/scaling-out.md), or run one worker",
            workers,
        )
