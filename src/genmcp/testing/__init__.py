"""``MCPTestClient``: an in-process MCP client for tests, speaking the real 2026-07-28 protocol.

It builds real JSON-RPC requests (``params._meta`` with the protocol version, client
capabilities and client info; ``progressToken`` and ``logLevel`` when asked), sends them as
JSON bytes and reads the notifications and the response as a client would. No sockets:

* a ``Suite`` is driven directly (``suite.handle`` and the request's outbox);
* an ``MCPRouter`` (mounted at ``path`` in a fresh FastAPI app) or any ASGI app is driven
  through the HTTP transport in-process, ``Mcp-*`` headers included, so auth
  dependencies, header checks and SSE framing run too.

Example::

    async def test_add() -> None:
        async with MCPTestClient(suite) as client:
            call = await client.call_tool("add", {"a": 1, "b": 2})
        assert call.text == "3"

Modules: ``client`` (``MCPTestClient``), ``opencall`` (``OpenCall``, ``Listener``: requests
held open), ``params`` (what the requests carry), ``results`` (what calls return),
``exchange`` (one request answered in-process), ``session`` (the 2025 session mode). The
top layer: used by tests only, it may import anything in genmcp.
"""

from genmcp.client.errors import RPCError
from genmcp.testing.client import MCPTestClient
from genmcp.testing.opencall import Listener, OpenCall
from genmcp.testing.params import DEFAULT_CAPABILITIES, CallOptions
from genmcp.testing.results import CallResult, Reply, accept, cancel, decline

__all__ = [
    "DEFAULT_CAPABILITIES",
    "CallOptions",
    "CallResult",
    "Listener",
    "MCPTestClient",
    "OpenCall",
    "RPCError",
    "Reply",
    "accept",
    "cancel",
    "decline",
]
