"""The command line's client: ``genmcp.client.Client``, driven from blocking code.

``HTTPClient`` runs one ``Client`` on an event loop of its own (``asyncio.Runner``) for as
long as a command lasts, so the command's requests share one connection pool and one
session. Everything else (the era probe, a 2025 session as the fallback, SSE replies read
as they arrive, ``input_required`` rounds, the ``Mcp-*`` headers) is the public client's:
there is one client in genmcp. ``CLIError`` and ``RPCFailure`` are its ``ClientError`` and
``RPCError``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from genmcp.client import Client, ClientError, RPCError
from genmcp.protocol.client import CLI_INFO, Message
from genmcp.protocol.methods import ELICITATION_CREATE, TOOLS_LIST

__all__ = ["CLIError", "HTTPClient", "RPCFailure"]

CLIError = ClientError
RPCFailure = RPCError
T = TypeVar("T")


class HTTPClient:
    """A blocking face of :class:`genmcp.client.Client` for one command.

    Args:
        url: the MCP endpoint (``http://`` or ``https://``).
        headers: extra headers on every request (e.g. ``Authorization``).
        timeout: seconds any connect or read may take.
        capabilities: the client capabilities declared (``{"elicitation": {}}``).
        on_request: answers a server request (``{"method", "params"}``: elicitation) with
            its result, blocking (the terminal form).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        client_info: Mapping[str, Any] = CLI_INFO,
        capabilities: Mapping[str, Any] | None = None,
        on_request: Callable[[Message], Any] | None = None,
    ) -> None:
        self._runner: asyncio.Runner | None = None

        def elicit(params: dict[str, Any]) -> Any:
            assert on_request is not None
            return on_request({"method": ELICITATION_CREATE, "params": params})

        self.client = Client(
            url,
            headers=headers,
            timeout=timeout,
            client_info=client_info,
            capabilities=capabilities,
            elicitation=elicit if on_request is not None else None,
        )
        self.url = url

    @property
    def era(self) -> str | None:
        """``"2026-07-28"`` or the 2025 session's revision (None before the first request)."""
        return self.client.era

    @property
    def session(self) -> Any:
        """The 2025 session, or None in 2026-07-28."""
        return self.client.session

    @property
    def server(self) -> dict[str, Any]:
        """The ``server/discover`` result, or the 2025 ``initialize`` result."""
        return self.client.server

    def list_all(self, method: str, key: str) -> list[dict[str, Any]]:
        """Every item of a list method (``tools/list``, ``tools``), following ``nextCursor``."""
        if method == TOOLS_LIST:
            return self.list_tools()
        return self._run(self.client.list_all(method, key))

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, following ``nextCursor`` to the last page."""
        return self._run(self.client.list_tools())

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        on_notification: Callable[[Message], None] | None = None,
        log_level: str | None = None,
    ) -> dict[str, Any]:
        """Call a tool, asking for progress; notifications go to ``on_notification``."""
        return self._run(
            self.client.call_tool(
                name,
                arguments,
                on_notification=on_notification,
                on_progress=(lambda *_: None),  # ask for progress: on_notification shows it
                log_level=log_level,
            )
        )

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send one request; return its result (``RPCFailure`` for an error response)."""
        return self._run(self.client.request(method, params))

    def probe(self) -> dict[str, Any]:
        """Learn the server's era; the discover/initialize result."""
        return self._run(self.client.connect())

    def close(self) -> None:
        """End a 2025 session (``DELETE``), close the pool and the loop."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        try:
            runner.run(self.client.aclose())
        finally:
            runner.close()

    def __enter__(self) -> HTTPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if self._runner is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop runs here: the client's own loop can be closed
            with contextlib.suppress(Exception):
                self.close()

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        if self._runner is None:
            self._runner = asyncio.Runner()
        try:
            return self._runner.run(work)
        except BaseException:  # the command ends here: leave no loop and no pool behind
            self.close()
            raise
