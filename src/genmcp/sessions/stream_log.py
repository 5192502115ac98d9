"""What a resumable SSE stream keeps beside its response: the log protocol, and priming.

The one SSE writer (``transports.http.sse``) writes every stream; a 2025 session's POST
stream also has a :class:`StreamLog` (``sessions.journal``) that names each event (its SSE
id), primes the stream (SSE polling, 2025-11-25: :func:`priming`), and may end the response
early while the Call runs on (``channel.close_stream()``, or :class:`Unlogged`). Declared
here, beside the session engine that implements it, so the engine never imports the
transport: the writer takes the protocol, and gives the log a :class:`Hub` for shutdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from genmcp.events import Event

if TYPE_CHECKING:
    from genmcp.call.relay import Relay

__all__ = ["Hub", "StreamLog", "Unlogged", "priming"]


class Unlogged(Exception):
    """A resumable stream's log refused an event after naming earlier ones: the response ends
    there (the client resumes from its last id) and the log takes the rest (``follow``)."""


class Hub(Protocol):
    """Tells what joined it that the server stops (``transports.http.sse.ShutdownHub``)."""

    def join(self, on_stop: Callable[[], None]) -> None:
        """Call ``on_stop`` (on the loop) when the server stops; ``leave`` when done."""
        ...

    def leave(self, on_stop: Callable[[], None]) -> None:
        """Forget ``on_stop``: what joined is done."""
        ...


class StreamLog(Protocol):
    """What a resumable stream keeps beside the response (``sessions.journal``)."""

    async def prime(self) -> bytes | None:
        """The priming event to open with (SSE polling), or None."""
        ...

    async def name(self, message: Any, *, final: bool) -> str | None:
        """Log ``message``; its SSE id (None: sent without one). Raises :class:`Unlogged`
        to end the response before this event (the log keeps it)."""
        ...

    def closes(self, event: Event) -> bool:
        """Whether ``event`` ends the response here while the Call runs on."""
        ...

    def follow(self, relay: Relay, hub: Hub) -> None:
        """The response ended early: log the rest of the Call, in a task of its own."""
        ...

    def unfinished(self, *, cancelled: bool) -> None:
        """The stream ended before its end was logged (the client left, or ``cancelled``)."""
        ...


def priming(event_id: str, retry_ms: int) -> bytes:
    """A priming event (SSE polling): an id, the ``retry:`` delay, empty data."""
    return f"id: {event_id}\nretry: {retry_ms}\ndata:\n\n".encode()
