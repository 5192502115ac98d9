"""``HTTPOptions``: the HTTP options of an MCP endpoint, their defaults and their checks.

The one place these options are defined: ``mcp_router(...)`` takes them as keywords (or as
``options=HTTPOptions(...)``) and ``MCPEndpoint`` reads them from the object. Values are
checked and normalized when the object is made, so a bad one fails where it was written.

Pure: imports genmcp's HTTP rules only; never Starlette or FastAPI.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, Final

from genmcp.transports.http.rules import LOCAL_HOSTS, MAX_BODY_BYTES, host_allow_list

__all__ = ["OPTION_NAMES", "HTTPOptions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HTTPOptions:
    """How an MCP endpoint guards, reads and streams HTTP (``mcp_router(options=...)``).

    Each field is also a keyword of ``mcp_router``. A wrong type or an out-of-range value
    raises ``TypeError`` or ``ValueError`` naming the option.
    """

    allowed_hosts: Iterable[str] | None = LOCAL_HOSTS
    """Host names accepted in ``Host`` and ``Origin`` (DNS rebinding): loopback names by
    default; ``["*"]`` or None accepts every host. Kept as a frozenset, normalized (lower
    case, IPv6 compressed); an entry with a port or a scheme is a ``ValueError``."""

    allowed_origins: Iterable[str] | None = None
    """Extra exact origins accepted (``https://app.example``); kept as a frozenset."""

    max_body_bytes: int = MAX_BODY_BYTES
    """Request body cap in bytes (4 MiB); a larger body is answered 413."""

    body_timeout_s: float | None = 30.0
    """A request body that has not wholly arrived this many seconds after its headers is
    answered 408 and the connection closed; None: wait forever."""

    keepalive_s: float = 15.0
    """Seconds between SSE keepalive comments; 0: none."""

    send_timeout_s: float | None = 30.0
    """A streamed response whose reader takes longer than this to accept one event is a
    disconnect (the call is cancelled or closed); None: wait forever."""

    drain_s: float = 30.0
    """At server shutdown (uvicorn's SIGTERM), how long a streaming call in flight may still
    run to its own answer before it is stopped with the shutdown error; 0: stopped at once.
    Listen streams end at once either way. Give uvicorn a longer
    ``--timeout-graceful-shutdown`` (docs/guides/deployment.md, "Rolling restarts")."""

    shutdown_grace_s: float = 2.0
    """At server shutdown, how long a stream may take to send its last event (the shutdown
    error) before it is cut."""

    def __post_init__(self) -> None:
        for name in ("allowed_hosts", "allowed_origins"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _names(name, value))
        if self.allowed_hosts is not None:
            object.__setattr__(self, "allowed_hosts", host_allow_list(self.allowed_hosts))
        if isinstance(self.max_body_bytes, bool) or not isinstance(self.max_body_bytes, int):
            raise TypeError(f"max_body_bytes must be an int, not {self.max_body_bytes!r}")
        if self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, not {self.max_body_bytes}")
        _seconds("body_timeout_s", self.body_timeout_s, optional=True)
        _seconds("keepalive_s", self.keepalive_s, zero=True)
        _seconds("send_timeout_s", self.send_timeout_s, optional=True)
        _seconds("drain_s", self.drain_s, zero=True)
        _seconds("shutdown_grace_s", self.shutdown_grace_s, zero=True)


OPTION_NAMES: Final = frozenset(field.name for field in fields(HTTPOptions))
"""The keywords of ``mcp_router`` that are ``HTTPOptions`` fields."""


def _names(option: str, value: Any) -> frozenset[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{option} takes a list of strings, not {value!r}")
    names = frozenset(value)
    wrong = sorted(repr(name) for name in names if not isinstance(name, str))
    if wrong:
        raise TypeError(f"{option} takes strings, not {', '.join(wrong)}")
    return names


def _seconds(option: str, value: Any, *, optional: bool = False, zero: bool = False) -> None:
    """Check a duration: a finite number of seconds, above 0 (or at least 0), or None."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        allowed = "a number of seconds or None" if optional else "a number of seconds"
        raise TypeError(f"{option} must be {allowed}, not {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        bound = "at least 0" if zero else "above 0"
        hint = " (None: no limit)" if optional else ""
        raise ValueError(f"{option} must be finite and {bound}{hint}, not {value}")
