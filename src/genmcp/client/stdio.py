"""The client's stdio wire: a server process spoken to in newline-delimited JSON-RPC.

``StdioWire`` starts the command, writes one JSON message per line to its stdin and reads its
stdout on one reader task, which matches each response to the request awaiting it. The
other messages are routed as a request over HTTP would see them: progress by its
``progressToken``, a listen stream's notifications by their ``subscriptionId``, logs and a
2025 server's requests to the one request in flight (to ``unrouted`` when there are several,
or none), everything else to ``unrouted``.

Cancelling the task that awaits ``send`` writes ``notifications/cancelled`` for it (the
stdio cancel in both eras). ``aclose`` closes stdin and waits for the process (then
terminates it). The server's stderr is inherited unless told otherwise. A line longer than
``max_message_bytes`` ends the reading (what follows it cannot be trusted to be a message):
the process is stopped, the requests in flight fail with ``MessageTooLarge`` and later ones
find it gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from genmcp.client.errors import ClientError, MessageTooLarge
from genmcp.client.http import OnMessage, Reply
from genmcp.client.limits import DEFAULT_LIMITS
from genmcp.client.session import LegacySession
from genmcp.protocol.client import Message, as_object
from genmcp.protocol.methods import MESSAGE, SUBSCRIPTIONS_LISTEN
from genmcp.protocol.versions import META_SUBSCRIPTION_ID

__all__ = ["StdioWire"]

EXIT_WAIT: Final = 5.0


@dataclass
class _Pending:
    future: asyncio.Future[Message]
    on_message: OnMessage | None
    token: Any
    listen: bool


class StdioWire:
    """One server process; ``send`` and ``post`` write to it, one task reads it."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stderr: int | None = None,
        max_message_bytes: int = DEFAULT_LIMITS.max_message_bytes,
    ) -> None:
        if not command:
            raise ValueError("a stdio command needs at least the program to run")
        self.command = list(command)
        self.url = " ".join(self.command)
        self.env = None if env is None else {**os.environ, **env}
        self.cwd, self.stderr = cwd, stderr
        self.max_message_bytes = max_message_bytes
        self.unrouted: OnMessage | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[Any, _Pending] = {}
        self._closed: str | None = None
        self._lock = asyncio.Lock()
        self._answering: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Start the process (once)."""
        if self._process is not None:
            return
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=self.stderr,
                env=self.env,
                cwd=self.cwd,
                limit=self.max_message_bytes,
            )
        except OSError as exc:
            raise ClientError(f"cannot start {self.url!r}: {exc.strerror or exc}") from None
        self._reader = asyncio.create_task(self._read(), name=f"stdio reader {self.url}")

    async def send(
        self,
        message: Message,
        headers: Mapping[str, str] | None = None,
        on_message: OnMessage | None = None,
        *,
        resume: Mapping[str, str] | None = None,
    ) -> Reply:
        """Write a request and await its response; cancelling sends ``notifications/cancelled``."""
        del headers, resume  # HTTP's; a process has neither
        await self.start()
        request_id: int | str = message["id"]
        params = as_object(message.get("params"))
        meta = as_object(params.get("_meta"))
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        listen = message.get("method") == SUBSCRIPTIONS_LISTEN
        self._pending[request_id] = _Pending(future, on_message, meta.get("progressToken"), listen)
        try:
            await self.post(message)
            reply = await future
        except asyncio.CancelledError:
            if self._pending.pop(request_id, None) is not None and self._closed is None:
                with contextlib.suppress(ClientError, OSError):
                    await asyncio.shield(self.post(LegacySession.cancelled(request_id)))
            raise
        finally:
            self._pending.pop(request_id, None)
        return Reply(200, {}, reply)

    async def post(self, message: Message) -> None:
        """Write one message (a notification, or a response to a server request)."""
        await self.start()
        if self._closed is not None or self._process is None or self._process.stdin is None:
            raise ClientError(f"{self.url!r} is not running: {self._closed or 'closed'}")
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:
            try:
                self._process.stdin.write(line.encode())
                await self._process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError):
                raise ClientError(f"{self.url!r} closed its stdin (did it exit?)") from None

    async def aclose(self) -> None:
        """Close stdin, wait for the process to exit (terminate it after a while)."""
        process, self._process = self._process, None
        if process is None:
            return
        self._closed = self._closed or "closed by the client"
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), EXIT_WAIT)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), EXIT_WAIT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    # -- reading ----------------------------------------------------------------------------

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        reason = "its stdout ended"
        failure: type[ClientError] = ClientError
        try:
            while line := await stdout.readline():
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # not a message: a careless print() on stdout
                if isinstance(message, dict):
                    await self._route(message)
        except (ValueError, asyncio.LimitOverrunError):
            reason = (f"it wrote a line longer than the client's {self.max_message_bytes} "
                      "bytes (ClientLimits(max_message_bytes=...) changes it)")  # fmt: skip
            failure = MessageTooLarge
            if self._process is not None:  # nothing it writes can be read any more
                with contextlib.suppress(ProcessLookupError):
                    self._process.terminate()
        finally:
            code = None
            if self._process is not None:
                with contextlib.suppress(TimeoutError):
                    code = await asyncio.wait_for(self._process.wait(), EXIT_WAIT)
            self._closed = self._closed or f"the server process ended ({reason})"
            if code is not None:
                self._closed += f", exit status {code}"
            for pending in self._pending.values():
                if not pending.future.done():
                    message = f"{self.url!r}: {self._closed}"
                    if failure is MessageTooLarge:
                        error: ClientError = MessageTooLarge(
                            message, "max_message_bytes", self.max_message_bytes
                        )
                    else:
                        error = ClientError(message)
                    pending.future.set_exception(error)

    async def _route(self, message: Message) -> None:
        if "method" not in message:
            pending = self._pending.get(message.get("id"))
            if pending is not None and not pending.future.done():
                pending.future.set_result(message)
            return
        target = self._target(message)
        handler = target.on_message if target is not None else None
        handler = handler or self.unrouted
        if handler is None:
            return
        if "id" in message:  # a server request: its answer may take a while (a person)
            task = asyncio.create_task(self._handle(handler, message))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        else:
            await self._handle(handler, message)

    async def _handle(self, handler: OnMessage, message: Message) -> None:
        try:
            await handler(message)
        except ClientError:
            pass  # an answer that could not be written: the request fails on its own

    def _target(self, message: Message) -> _Pending | None:
        params = as_object(message.get("params"))
        meta = as_object(params.get("_meta"))
        token = params.get("progressToken")
        for key, pending in self._pending.items():
            if token is not None and pending.token == token:
                return pending
            if meta.get(META_SUBSCRIPTION_ID) == key and pending.listen:
                return pending
        if "id" in message or message.get("method") == MESSAGE:
            calls = [p for p in self._pending.values() if not p.listen and p.on_message]
            return calls[0] if len(calls) == 1 else None
        return None
