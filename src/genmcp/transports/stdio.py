"""MCP over stdio: newline-delimited JSON-RPC on stdin and stdout, for desktop clients.

One process serves one client. Each line on stdin is one JSON-RPC message; each line we
write on stdout is one message, and nothing else ever reaches stdout: logs go to stderr,
and ``run_stdio`` points ``sys.stdout`` and file descriptor 1 at stderr too, so a stray
``print`` in a tool cannot corrupt the stream.

2026-07-28: every request carries its own ``_meta`` (``server/discover``, ``tools/list``,
``tools/call``); requests are handled concurrently, each ``tools/call`` in its own
worker; progress and logs are written as notifications while the request is in flight;
``notifications/cancelled {requestId}`` disconnects the call (an async ``call`` is
cancelled, a stream gets ``handle_close``) and nothing more is written for it. A line that
is not JSON gets -32700, one that is not a JSON-RPC request -32600 (a line over
``max_line_bytes`` too).

A first message ``initialize`` makes the process a legacy (2025) session, served by
``sessions.LegacyServer`` as over HTTP (the process is the session): ``ping``,
``logging/setLevel``, results translated for the negotiated revision, and a tool's
``InputRequired`` sent as server-initiated requests whose answers come back on stdin.
After any other first message, ``initialize`` is refused with -32022.

At EOF on stdin the server stops reading, gives the requests in flight
``shutdown_grace_s`` to answer, disconnects the rest, waits for every worker to end and
returns. ``stop()`` (SIGTERM, SIGINT under ``run_stdio``) does the same without the grace.

Which Suite a target serves, and an app's lifespan around it, are ``transports.hosting``'s
(``suite_of`` and ``host_apps`` still import from here); the reader thread that splits
stdin into lines is ``transports.lines``. Imports asyncio, the Suite and the protocol
modules; never a web framework.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO, Final

from genmcp.call.relay import Relay
from genmcp.context import AppContext, bind, unbind
from genmcp.errors import MCPError
from genmcp.events import Answer, Interim
from genmcp.middleware.chain import TransportContext
from genmcp.protocol.jsonrpc import (
    EnvelopeError,
    Notification,
    Request,
    RequestId,
    encode,
    error_response,
    parse,
)
from genmcp.protocol.methods import CANCELLED, INITIALIZE
from genmcp.protocol.versions import Era
from genmcp.sessions import LegacyServer
from genmcp.suite import Suite
from genmcp.transports.hosting import host_apps as host_apps
from genmcp.transports.hosting import require_suite, served
from genmcp.transports.hosting import suite_of as suite_of
from genmcp.transports.http.rules import MAX_BODY_BYTES
from genmcp.transports.lines import READ_AHEAD, TOO_LONG, read_lines

__all__ = ["StdioServer", "run_stdio", "serve_stdio"]

log = logging.getLogger("genmcp.stdio")

_PIPE: Final = TransportContext("pipe")
"""What the middleware knows of a stdio request: it came over a pipe."""


class StdioServer:
    """Serves one Suite to one client over a pair of binary streams.

    Args:
        suite: what to serve.
        reader: where client lines come from (``sys.stdin.buffer``).
        writer: where our lines go (the real stdout).
        assigns: ``channel.assigns`` of every call (stdio has no auth: the local user).
        shutdown_grace_s: how long requests in flight may still answer after EOF.
        shutdown_timeout_s: how long to wait for workers to end after disconnecting them.
        max_line_bytes: longest accepted line; longer ones are skipped and refused.
        legacy: serve a client whose first message is ``initialize`` (True), with a
            configured ``LegacyServer``, or refuse it (False).
        context: makes the app context of each request (``channel.app``, ``.state``,
            ``.resolve``; ``genmcp.fastapi.stdio_app``); None: hooks see no app.
    """

    def __init__(
        self,
        suite: Suite,
        *,
        reader: BinaryIO,
        writer: BinaryIO,
        assigns: Mapping[str, Any] | None = None,
        shutdown_grace_s: float = 1.0,
        shutdown_timeout_s: float = 5.0,
        max_line_bytes: int = MAX_BODY_BYTES,
        legacy: bool | LegacyServer = True,
        context: Callable[[], AppContext] | None = None,
    ) -> None:
        self.suite, self._context = suite, context
        self.assigns: Mapping[str, Any] = dict(assigns or {})
        self.shutdown_grace_s, self.shutdown_timeout_s = shutdown_grace_s, shutdown_timeout_s
        self.max_line_bytes = max_line_bytes
        self._reader, self._writer = reader, writer
        self._calls: dict[RequestId, asyncio.Task[None]] = {}  # requests in flight
        self._relays: dict[RequestId, Relay] = {}  # their Calls, once the Suite made them
        self._stopped: asyncio.Event | None = None
        self._broken = False
        self._era: Era | None = None  # fixed by the first request
        self._legacy = legacy if isinstance(legacy, LegacyServer) else None
        self._legacy_allowed = legacy is not False
        self._session: str | None = None  # the legacy session id: this process is the session
        self._background: set[asyncio.Task[Any]] = set()

    # -- the loop -------------------------------------------------------------------

    async def serve(self) -> None:
        """Read and answer lines until EOF (or ``stop()``), then end every call."""
        loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        lines: asyncio.Queue[bytes | None] = asyncio.Queue(READ_AHEAD)
        reader = threading.Thread(
            target=read_lines,
            args=(self._reader, self.max_line_bytes, loop, lines),
            name="genmcp-stdio-reader",
            daemon=True,
        )
        reader.start()
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            while True:
                line = asyncio.ensure_future(lines.get())
                await asyncio.wait((line, stopped), return_when=asyncio.FIRST_COMPLETED)
                if not line.done():
                    line.cancel()
                    break
                received = line.result()
                if received is None:
                    break
                self._receive(received)
        finally:
            stopped.cancel()
            await self._shutdown(grace=not self._stopped.is_set())

    def stop(self) -> None:
        """Stop reading and end every call now (a signal, or the client's stdout closed)."""
        if self._stopped is not None:
            self._stopped.set()

    # -- incoming messages --------------------------------------------------------------

    def _receive(self, line: bytes) -> None:
        if line == TOO_LONG:
            too_long = f"Invalid Request: message over {self.max_line_bytes} bytes"
            self._write(error_response(None, MCPError("invalid_request", too_long)))
            return
        if not line.strip():
            return
        try:
            message = parse(line)
        except EnvelopeError as exc:
            self._spawn(self._unparsed(line, exc))
            return
        if isinstance(message, Notification):
            self._notification(message)
        elif isinstance(message, Request):
            self._request(message)
        elif self._era is Era.LEGACY:  # an answer to one of our server requests
            self._spawn(self._legacy_server().post(message, self._session, None, self.assigns))
        else:
            log.debug("ignored a client response (id %r): no request of ours awaits it", message.id)

    def _notification(self, message: Notification) -> None:
        if message.method != CANCELLED:
            return  # e.g. notifications/initialized: nothing to do
        request_id = message.params.get("requestId")
        if not isinstance(request_id, str | int):
            return
        call, relay = self._calls.pop(request_id, None), self._relays.pop(request_id, None)
        if call is not None:
            log.debug("request %r cancelled by the client", message.params.get("requestId"))
            if relay is not None:
                relay.call.cancel()  # a cancel, not a disconnect, to the Call's observers
            call.cancel()

    def _request(self, request: Request) -> None:
        if request.id in self._calls:
            failure = MCPError(
                "invalid_request", f"Invalid Request: id {request.id!r} is already in flight"
            )
            self._write(error_response(request.id, failure))
            return
        if self._era is None:
            legacy = request.method == INITIALIZE and self._legacy_allowed
            self._era = Era.LEGACY if legacy else Era.MODERN
        if request.method == INITIALIZE and self._era is Era.MODERN:
            self._write(self._refuse_legacy(request))
            return
        self._calls[request.id] = asyncio.ensure_future(self._answer(request))

    def _refuse_legacy(self, request: Request) -> dict[str, Any]:
        """Answer ``initialize``: this process speaks only the 2026-07-28 protocol."""
        requested = request.params.get("protocolVersion")
        failure = MCPError(
            "unsupported_version",
            f"Unsupported protocol version: {requested!r} (this server speaks "
            f"{', '.join(self.suite.supported_versions)} with per-request _meta)",
            {"supported": list(self.suite.supported_versions), "requested": requested},
        )
        return error_response(request.id, failure)

    async def _answer(self, request: Request) -> None:
        """Answer one request: its notifications as they come, then its response."""
        context = None if self._context is None else self._context()
        token = None if context is None else bind(context)
        try:
            relay = await self._relay(request)
            if relay is None:
                return
            self._relays[request.id] = relay
            try:
                async for event in relay:  # one line per message; stream starts write nothing
                    if type(event) is Interim:
                        self._write(event.message)
                    elif type(event) is Answer:
                        self._write(event.response)
            finally:
                relay.close()  # the client cancelled, or we are shutting down
        finally:
            if self._calls.get(request.id) is asyncio.current_task():
                del self._calls[request.id]
                self._relays.pop(request.id, None)
            if token is not None:
                unbind(token)  # the call's yield dependencies ended in its task

    async def _relay(self, request: Request) -> Relay | None:
        """The relay of the Suite's Call (modern) or the legacy session's; None: no answer."""
        if self._era is Era.MODERN:
            return Relay(await self.suite.handle(request, self.assigns, context=_PIPE))
        try:
            legacy = self._legacy_server()
            answer = await legacy.post(request, self._session, None, self.assigns, _PIPE)
        except MCPError as exc:  # a session fault, e.g. a request before initialize
            self._write(error_response(request.id, exc))
            return None
        if answer.session_id is not None:  # initialize: this process is the session from now
            self._session = answer.session_id
            self._spawn(self._session_stream())
        return None if answer.call is None else Relay(answer.call, answer.codec)

    async def _unparsed(self, line: bytes, exc: EnvelopeError) -> None:
        if self._era is Era.LEGACY:  # an unusable answer fails the server request it answers
            exc = await self._legacy_server().unusable(line, exc, self._session, None, self.assigns)
        self._write(error_response(exc.request_id, exc))

    def _legacy_server(self) -> LegacyServer:
        if self._legacy is None:
            self._legacy = LegacyServer(self.suite)
        return self._legacy

    async def _session_stream(self) -> None:
        """A legacy session's notifications not tied to a request (list changes)."""
        stream = await self._legacy_server().stream(self._session, None, self.assigns)
        async for message in stream:
            self._write(message)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _write(self, message: Any) -> None:
        if self._broken:
            return
        try:
            self._writer.write(encode(message) + b"\n")
            self._writer.flush()
        except (OSError, ValueError) as exc:  # the client closed our stdout
            log.info("stdout closed (%r): ending every call", exc)
            self._broken = True
            self.stop()

    # -- shutdown -----------------------------------------------------------------------

    async def _shutdown(self, *, grace: bool) -> None:
        """Let requests in flight answer (EOF only), disconnect the rest, await workers."""
        tasks = list(self._calls.values())
        if tasks and grace and not self._broken:
            await asyncio.wait(tasks, timeout=self.shutdown_grace_s)
        for task in [*self._calls.values(), *self._background]:
            task.cancel()
        self._calls.clear()
        if tasks or self._background:  # bounded: a task that ignores cancellation cannot hang us
            await asyncio.wait([*tasks, *self._background], timeout=self.shutdown_timeout_s)
        await self._calls_ended()
        if self._session is not None:  # the client left: its legacy session ends with it
            with contextlib.suppress(MCPError):
                await self._legacy_server().delete(self._session, None, self.assigns, _PIPE)

    async def _calls_ended(self) -> None:
        """Wait (bounded) until the Suite runs no call: this process is its only client."""
        if not await self.suite.wait_idle(within_s=self.shutdown_timeout_s):
            log.warning("%d call(s) still running at exit", self.suite.live_workers)


async def serve_stdio(
    target: Any,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    **options: Any,
) -> None:
    """Serve ``target`` (a Suite, an ``MCPRouter`` or an app mounting one) over stdio.

    ``options`` are those of ``StdioServer``, plus ``headers=`` for an app's auth dependency
    (see ``genmcp.fastapi.stdio_app``). A router or an app runs its lifespan around serving.
    Returns at EOF once every worker ended.
    """
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    async with served(target, options) as (suite, kept):
        await StdioServer(suite, reader=reader, writer=writer, **kept).serve()


def run_stdio(target: Any, **options: Any) -> None:
    """Serve ``target`` over this process's stdin and stdout until EOF (blocking).

    Keeps stdout for the protocol alone: file descriptor 1 and ``sys.stdout`` are pointed
    at stderr while serving. SIGTERM and SIGINT end every call and return. ``options``
    are those of ``serve_stdio``.
    """
    if not isinstance(target, Suite):
        require_suite(target)  # fail before touching the descriptors
    sys.stdout.flush()
    protocol: BinaryIO
    try:
        protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real file descriptors (embedded)
        protocol = sys.stdout.buffer
    sys.stdout = sys.stderr

    async def main() -> None:
        async with served(target, dict(options)) as (suite, kept):
            server = StdioServer(suite, reader=sys.stdin.buffer, writer=protocol, **kept)
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(signum, server.stop)
            await server.serve()

    try:
        asyncio.run(main())
    finally:
        with contextlib.suppress(OSError, ValueError):  # the client may have closed the pipe
            protocol.close()
