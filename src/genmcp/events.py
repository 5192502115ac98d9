"""What a request in flight emits, as typed events: the one contract of every transport.

A Call (``genmcp.call.call``) puts these on its Outbox in order; the relay
(``genmcp.call.relay``) reads them, passes them through the codec of the request's
protocol era, and each transport writes them its own way (JSON or SSE, stdio lines, the
in-process test client). Nothing follows an ``Answer`` or an ``Ended``.

- :class:`Interim`: a JSON-RPC message sent before the response: a notification (progress,
  log, change) or a server-initiated request (a legacy input round).
- :class:`StreamStart`: open the streamed response now (``channel.start_stream()``), so
  keepalives flow while slow work runs.
  ``channel.close_stream()`` puts one too (its own instance, ``channel.CLOSE_STREAM``): the
  2025-11-25 transport, which can end a response and resume it later, tells that one apart
  by identity (``sessions.journal``); to every other reader it is a stream start.
- :class:`Answer`: the JSON-RPC response. ``reason`` names the failure of an error response
  (a key of ``errors.REASONS``); only a transport turns it into an HTTP status.
- :class:`Ended`: the request ended without a response (cancelled by the client or its
  session); a stream just closes.

:class:`Ending` names how a request in flight ended, for those who watch it (middleware,
telemetry): answered, cancelled or disconnected.

Don't subclass these. Pure: imports nothing from genmcp, no asyncio.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, final

__all__ = [
    "ENDED",
    "STREAM_START",
    "Answer",
    "Ended",
    "Ending",
    "Event",
    "Interim",
    "StreamStart",
]


@final
@dataclass(frozen=True, slots=True)
class Interim:
    """A JSON-RPC message (notification or server request) sent before the response."""

    message: dict[str, Any]


@final
@dataclass(frozen=True, slots=True)
class StreamStart:
    """Switch the response to a stream now, before any message."""


@final
@dataclass(frozen=True, slots=True, init=False)
class Answer:
    """The JSON-RPC response; ``reason`` is the failure's reason for an error response."""

    response: dict[str, Any]
    reason: str | None = None

    def __init__(self, response: dict[str, Any], reason: str | None = None) -> None:
        # through the slots' own setters: a frozen dataclass's generated __init__ goes
        # through object.__setattr__ per field (every call makes one or two: the hot path)
        _ANSWER_RESPONSE(self, response)
        _ANSWER_REASON(self, reason)


_ANSWER_RESPONSE: Final = vars(Answer)["response"].__set__
_ANSWER_REASON: Final = vars(Answer)["reason"].__set__


@final
@dataclass(frozen=True, slots=True)
class Ended:
    """The request ended without a response (cancelled); close the stream."""


class Ending(StrEnum):
    """How a request in flight ended (a ``str``: ``Ending.CANCELLED == "cancelled"``)."""

    ANSWERED = "answered"
    """Its response went out (a result or an error)."""
    CANCELLED = "cancelled"
    """The client cancelled it (or its legacy session ended): no response."""
    DISCONNECTED = "disconnected"
    """The client left: nobody to answer."""


Event = Interim | StreamStart | Answer | Ended

STREAM_START: Final = StreamStart()
ENDED: Final = Ended()
