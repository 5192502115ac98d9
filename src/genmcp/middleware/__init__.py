"""Middleware: the chain around every request, and the middleware genmcp ships.

- ``middleware.chain``: ``Middleware``, ``MCPRequest``, ``TransportContext``, ``watch`` and
  how the Suite runs the chain around a Call;
- ``middleware.observe``: ``AccessLog`` and ``Timing``;
- ``middleware.ratelimit``: ``RateLimit``, its ``Limit`` and key functions (``assigns_key``);
- ``middleware.telemetry``: ``Telemetry`` (OpenTelemetry; ``pip install 'genmcp[otel]'``),
  loaded on first use, so importing this package never imports OpenTelemetry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genmcp.call import Call
from genmcp.middleware.chain import (
    CallEnd,
    Link,
    MCPRequest,
    Middleware,
    Next,
    TransportContext,
    refusal,
    run_chain,
    session_ended,
    watch,
)
from genmcp.middleware.observe import AccessLog, Timing
from genmcp.middleware.ratelimit import Limit, RateLimit, assigns_key

if TYPE_CHECKING:
    from genmcp.middleware.telemetry import Telemetry

__all__ = [
    "AccessLog",
    "Call",
    "CallEnd",
    "Limit",
    "Link",
    "MCPRequest",
    "Middleware",
    "Next",
    "RateLimit",
    "Telemetry",
    "Timing",
    "TransportContext",
    "assigns_key",
    "refusal",
    "run_chain",
    "session_ended",
    "watch",
]


def __getattr__(name: str) -> Any:
    """``Telemetry`` on first use: it imports OpenTelemetry, an optional extra."""
    if name == "Telemetry":
        from genmcp.middleware.telemetry import Telemetry

        return Telemetry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
