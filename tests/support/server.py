"""LiveServer: a real uvicorn server on 127.0.0.1 in a background thread, for end-to-end tests.

Owns: starting uvicorn on a free port with its own event loop, waiting until it listens,
and stopping it (graceful, then forced). The app's loop is `LiveServer.loop`; coroutines
can run there with `submit()` / `run_in_loop()`.

    with serve(app) as base_url:
        httpx.get(base_url + "/mcp")

The server logs through the standard `logging` tree (uvicorn's own logging config is not
installed), so pytest captures it. Warnings raised in the server thread obey the test's
filters: with `filterwarnings = error` they surface as 500s, which is what we want.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import Any, Final, TypeVar

import uvicorn

T = TypeVar("T")

#: Our defaults; any `uvicorn.Config` keyword given to LiveServer overrides them.
CONFIG_DEFAULTS: Final[Mapping[str, Any]] = {
    "log_level": "warning",
    "log_config": None,
    "access_log": False,
    "lifespan": "auto",
    "ws": "none",
    "timeout_graceful_shutdown": 3,
}


class LiveServer:
    """One uvicorn server for `app` (any ASGI app); use as a context manager or start/stop."""

    def __init__(
        self,
        app: Any,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        startup_timeout: float = 60.0,  # hang guards: a loaded machine starts a thread slowly
        shutdown_timeout: float = 20.0,  # twice of it stays under pytest-timeout's 60 s
        loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
        sock: socket.socket | None = None,
        **config: Any,
    ) -> None:
        """``sock``: a listening socket to serve (``ports.listening(0)``, its port known to the
        app before it starts and never free meanwhile) instead of binding ``host:port``."""
        if sock is not None:
            host, port = sock.getsockname()[:2]
        self.sock = sock
        self.config = uvicorn.Config(app, host=host, port=port, **{**CONFIG_DEFAULTS, **config})
        self.server = uvicorn.Server(self.config)
        self.host = host
        self.port = port
        self.startup_timeout = startup_timeout
        self.shutdown_timeout = shutdown_timeout
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._failure: BaseException | None = None
        self._loop_factory = loop_factory  # None: asyncio's loop (uvloop.new_event_loop: uvloop)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the app runs on (closed once the server has stopped)."""
        if self._loop is None:
            raise RuntimeError("the server is not running")
        return self._loop

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> str:
        """Start serving and return the base URL once uvicorn listens."""
        if self._thread is not None:
            raise RuntimeError("a LiveServer starts once")
        self._thread = threading.Thread(target=self._run, name="live-uvicorn", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not self.server.started:
            if not self._thread.is_alive():
                raise RuntimeError("uvicorn stopped during startup") from self._failure
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"uvicorn did not start in {self.startup_timeout}s")
            time.sleep(0.005)
        sockets = self.server.servers[0].sockets
        self.port = sockets[0].getsockname()[1]
        return self.url

    def stop(self) -> None:
        """Stop accepting connections, then ask uvicorn to exit; force it after
        `shutdown_timeout`; wait for the thread."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return
        with contextlib.suppress(RuntimeError, TimeoutError):  # gone, or stuck: exit all the same
            self.submit(self._stop_accepting()).result(self.shutdown_timeout)
        self.server.should_exit = True
        thread.join(self.shutdown_timeout)
        if thread.is_alive():
            stuck = self.stacks()  # before forcing: what the graceful exit waits on
            print(stuck, file=sys.stderr, flush=True)  # seen even if pytest-timeout fires next
            self.server.force_exit = True
            thread.join(self.shutdown_timeout)
            if thread.is_alive():
                raise RuntimeError(f"uvicorn on {self.url} did not stop\n{stuck}")

    async def _stop_accepting(self) -> None:
        """Take the listening sockets off the loop and let the connections accepted so far
        get their transports, before uvicorn closes the server: a connection accepted in the
        loop turn that closes it cannot be attached to it (CPython 3.11's ``Server._attach``
        asserts), and its transport and socket were left unclosed to the garbage collector
        (an "unclosed socket" error in whichever test it collected in). Connections arriving
        from now on wait in the backlog and are refused when uvicorn closes the socket."""
        loop = asyncio.get_running_loop()
        for server in self.server.servers:
            for sock in server.sockets:
                loop.remove_reader(sock.fileno())
        for _ in range(3):  # accepted -> transport built -> connection_made: one turn each
            await asyncio.sleep(0)

    def stacks(self) -> str:
        """The server thread's stack and every pending task of its loop, with their stacks:
        what a server that does not stop is waiting on (read on the loop when it still turns,
        e.g. inside ``asyncio.Runner``'s final cancel of leftover tasks)."""
        out = io.StringIO()
        out.write(f"uvicorn on {self.url} did not stop in {self.shutdown_timeout} s\n")
        thread = self._thread
        frame = sys._current_frames().get(thread.ident or -1) if thread is not None else None
        if frame is not None:
            out.write("-- server thread:\n" + "".join(traceback.format_stack(frame)))
        loop = self._loop
        if loop is None or loop.is_closed():
            return out.getvalue()

        def pending() -> list[asyncio.Task[Any]]:
            return [task for task in asyncio.all_tasks(loop) if not task.done()]

        try:  # on the loop's own thread: consistent
            tasks = concurrent.futures.Future[list[asyncio.Task[Any]]]()
            loop.call_soon_threadsafe(lambda: tasks.set_result(pending()))
            found = tasks.result(timeout=5)
        except (RuntimeError, concurrent.futures.TimeoutError):  # the loop does not turn
            found = pending()
        for task in found:
            out.write(f"-- pending {task!r} (cancelling: {task.cancelling()})\n")
            task.print_stack(file=out)
        return out.getvalue()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule `coro` on the app's loop, from any thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def run_in_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the app's loop and await its result from the test's loop."""
        return await asyncio.wrap_future(self.submit(coro))

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            with asyncio.Runner(loop_factory=self._loop_factory) as runner:
                self._loop = runner.get_loop()
                runner.run(self.server.serve(None if self.sock is None else [self.sock]))
        except BaseException as exc:  # uvicorn reports a failed startup with sys.exit()
            self._failure = exc


@contextlib.contextmanager
def serve(app: Any, **options: Any) -> Iterator[str]:
    """Serve `app` for the duration of the block; yield its base URL."""
    with LiveServer(app, **options) as base_url:
        yield base_url


class LiveServers:
    """The `live_server` fixture: `base = live_server(app)`; all stopped at teardown."""

    def __init__(self) -> None:
        self.started: list[LiveServer] = []

    def __call__(self, app: Any, **options: Any) -> str:
        return self.start(app, **options).url

    def start(self, app: Any, **options: Any) -> LiveServer:
        server = LiveServer(app, **options)
        server.start()
        self.started.append(server)
        return server

    @property
    def last(self) -> LiveServer:
        return self.started[-1]

    def stop_all(self) -> None:
        errors = []
        for server in reversed(self.started):
            try:
                server.stop()
            except RuntimeError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
