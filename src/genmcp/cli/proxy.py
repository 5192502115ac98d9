"""``genmcp proxy URL``: serve a remote MCP server, of either era, in both eras.

The proxy is ``mcp_router(proxy=URL)`` (docs/guides/composition.md, "Proxy mode") in a
FastAPI app served by uvicorn: a 2025 session server becomes reachable by 2026-07-28
clients and a 2026-07-28 server by 2025 session clients, through one pooled client.
``--header`` and ``GENMCP_PROXY_TOKEN`` (a bearer token, kept out of the process list) go
upstream with every request.

Imports the FastAPI transport and uvicorn when it runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["TOKEN_ENV", "proxy_app", "register"]

TOKEN_ENV: Final = "GENMCP_PROXY_TOKEN"
EXAMPLES: Final = """\
examples:
  genmcp proxy http://127.0.0.1:3001/mcp --port 8000     # MCP at http://127.0.0.1:8000/mcp
  GENMCP_PROXY_TOKEN=... genmcp proxy https://api.example.com/mcp --timeout 30
"""


def proxy_app(
    url: str,
    *,
    path: str = "/mcp",
    headers: Mapping[str, str] | None = None,
    token: str | None = None,
    timeout_s: float = 10.0,
    protocol: str | None = None,
) -> Any:
    """The FastAPI app serving ``url`` at ``path`` (both eras); ``protocol`` fixes the
    upstream's revision instead of probing it."""
    from genmcp.compose.mount import Mount
    from genmcp.fastapi.router import mcp_app, mcp_router

    mount = Mount(
        url=url, resources=True, timeout_s=timeout_s, token=token, headers=headers,
        protocol=protocol,
    )  # fmt: skip
    router = mcp_router(proxy=None, mounts=[mount], server_name="genmcp-proxy", server_version="1")
    return mcp_app(router, path=path, title=f"genmcp proxy of {url}")


def register(
    commands: Any,
    usage: type[Exception],
    headers_of: Callable[[list[str]], dict[str, str]],
    stack: Callable[[], tuple[str, str]],
) -> None:
    """Add ``proxy``; ``headers_of`` parses ``-H`` values, ``stack`` picks loop and parser."""
    sub: argparse.ArgumentParser = commands.add_parser(
        "proxy",
        help="serve a remote MCP server (either era) in both eras",
        description="Serve the MCP server at URL (a 2026-07-28 server or a 2025 session "
        "server) at --path, to 2026-07-28 clients and to 2025 session clients alike: its "
        "tools, prompts, resources and tasks, through one pooled client.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument("url", metavar="URL", help="the upstream MCP endpoint")
    sub.add_argument("--host", default="127.0.0.1", help="bind address (127.0.0.1)")
    sub.add_argument("--port", type=int, default=8000, help="port (8000)")
    sub.add_argument("--path", default="/mcp", help="where the proxy serves MCP (/mcp)")
    sub.add_argument(
        "--timeout", type=float, default=10.0, help="seconds a connect or read upstream may take"
    )
    sub.add_argument(
        "--upstream-protocol", metavar="REVISION",
        help="speak this revision upstream (2026-07-28, 2025-11-25...) instead of probing",
    )  # fmt: skip
    sub.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'",
        help=f"a header sent upstream (a bearer token: {TOKEN_ENV})",
    )  # fmt: skip

    def handler(args: argparse.Namespace) -> int:
        import uvicorn

        if "://" not in args.url or not args.url.startswith(("http://", "https://")):
            raise usage(f"proxy: expected an http(s) URL, got {args.url!r}")
        token = os.environ.get(TOKEN_ENV) or None
        app = proxy_app(
            args.url, path=args.path, headers=headers_of(args.header), token=token,
            timeout_s=args.timeout, protocol=args.upstream_protocol,
        )  # fmt: skip
        loop, http = stack()
        where = f"http://{args.host}:{args.port}{args.path}"
        print(f"genmcp: proxy of {args.url} at {where} ({loop}, {http})", file=sys.stderr)
        from genmcp.transports.http.heads import protocol_for

        uvicorn.run(app, host=args.host, port=args.port, loop=loop, http=protocol_for(http))
        return 0

    sub.set_defaults(handler=handler)
