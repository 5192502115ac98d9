"""The relay's reader: a Call's events, in order, through the codec of its era.

Every reader of a request in flight reads it the same way, ``async for event in Relay(call,
codec)``, and writes each event to its sink: the HTTP transport (``transports.http.relay``: JSON
or an SSE stream), stdio (one line per message), the in-process test client
(``testing.exchange``) and the task service (``tasks.service``: into the task's record). The
relay takes the Call's typed events (``genmcp.events``) in order, passes each through the
codec, and stops after the ``Answer`` or ``Ended``. :meth:`Relay.poll` takes the next event
without waiting: the HTTP writer's one first-event step polls, lets the Call take its first
step, and polls again, and decides JSON or stream from what it got
(``transports.http.relay.respond``). ``close()`` is the reader going away: the Call is
disconnected (cancelled, or ``handle_close`` while streaming) unless it had already ended.

A codec per era:

- :data:`MODERN` (2026-07-28): the identity.
- :class:`LegacyCodec` (2025 revisions): notifications and results as the session's
  revision knows them (``genmcp.protocol.legacy_results``).

It sits below the transports (in ``genmcp.call``) so the task service reads through it too.
Imports asyncio and genmcp's events and protocol; never a transport or a web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, final
from typing import Final as Constant

from genmcp.events import Answer, Ended, Event, Interim
from genmcp.protocol import legacy_results

if TYPE_CHECKING:
    from genmcp.call.call import Call

__all__ = ["MODERN", "Codec", "LegacyCodec", "ModernCodec", "Relay"]


class Codec(Protocol):
    """How one protocol era writes a request's messages."""

    def interim(self, message: dict[str, Any]) -> dict[str, Any]:
        """A notification or server request, as this era sends it."""
        ...

    def final(self, final: Answer) -> Answer:
        """The response, as this era sends it."""
        ...


@final
class ModernCodec:
    """2026-07-28: messages go out as the Suite built them."""

    __slots__ = ()

    def interim(self, message: dict[str, Any]) -> dict[str, Any]:
        return message

    def final(self, final: Answer) -> Answer:
        return final


MODERN: Constant = ModernCodec()


@final
class LegacyCodec:
    """A 2025 session's revision: notifications, results and errors translated for it."""

    __slots__ = ("method", "version")

    def __init__(self, method: str, version: str) -> None:
        self.method, self.version = method, version

    def interim(self, message: dict[str, Any]) -> dict[str, Any]:
        return legacy_results.legacy_message(message, self.version)

    def final(self, final: Answer) -> Answer:
        response = final.response
        if "result" in response:
            result = legacy_results.legacy_result(self.method, response["result"], self.version)
            return Answer({"jsonrpc": "2.0", "id": response.get("id"), "result": result})
        error = legacy_results.legacy_error(self.method, response.get("error"))
        return Answer({"jsonrpc": "2.0", "id": response.get("id"), "error": error}, final.reason)


@final
class Relay:
    """Drains one Call: ``async for event in relay`` until its ``Answer`` or ``Ended``."""

    __slots__ = ("_done", "call", "codec")

    def __init__(self, call: Call, codec: Codec = MODERN) -> None:
        self.call = call  # the Call being drained
        self.codec = codec
        self._done = False

    @property
    def done(self) -> bool:
        """True once the last event was read (or the reader closed)."""
        return self._done

    def poll(self) -> Event | None:
        """The next event if there is one now, else None (no wait)."""
        events = self.call.outbox._events  # get_nowait inline: no frame (the hot path)
        if not events:
            return None
        event = events.popleft()
        if type(event) is Answer:  # the hot path: the answer, at once (no through frame)
            self._done = True
            codec = self.codec
            return event if codec is MODERN else codec.final(event)
        return self.through(event)

    async def next(self) -> Event:
        """Wait for the next event."""
        return self.through(await self.call.outbox.get())

    async def wake_or_next(self) -> Event | None:
        """The next event, or None when the outbox was woken (a timer, the client leaving)."""
        event = await self.call.outbox.get_or_wake()
        return None if event is None else self.through(event)

    def __aiter__(self) -> Relay:
        return self

    async def __anext__(self) -> Event:
        if self._done:
            raise StopAsyncIteration
        return await self.next()

    def close(self) -> None:
        """The reader is done or gone: disconnect the Call unless it already ended."""
        self._done = True
        self.call.disconnect()  # a no-op once the call is done
        self.call.outbox.clear()  # nobody will read what is queued: release it now

    def through(self, event: Event) -> Event:
        """``event``, taken from the Call's outbox, as this reader sees it (an SSE writer
        waits on the outbox itself, with no ``wake_or_next`` coroutine per wait)."""
        modern = self.codec is MODERN  # the identity: no copy
        if type(event) is Answer:
            self._done = True
            return event if modern else self.codec.final(event)
        if type(event) is Interim:
            return event if modern else Interim(self.codec.interim(event.message))
        if isinstance(event, Ended):
            self._done = True
        return event
