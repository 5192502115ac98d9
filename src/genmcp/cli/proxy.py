"""``genmcp proxy URL``: serve a remote MCP server, of either era, in both eras.

The proxy is ``mcp_router(proxy=URL)`` (docs/guides/composition.md, "Proxy mode") in a
FastAPI app served by uvicorn: a 2025 session server becomes reachable by 2026-07-28
clients and a 2026-07-28 server by 2025 session clients, through one pooled client.
``--header`` and ``GENMCP_PROXY_TOKEN`` (a bearer token, kept out of the process list) go
upstream with every request. The upstream is held to ``ClientLimits`` (``--max-message-bytes``,
``--max-pages``, ``--max-items``, ``--deadline``; ``--timeout`` per connect and read), and its
answers are cached as its ``ttlMs``/``cacheScope`` allow: in this process, or with
``--redis-url`` (or ``GENMCP_REDIS_URL``) in Redis, shared by every proxy process on it, which
then scale out as one (sessions, tasks, rate limits); ``--no-cache`` asks the upstream every
time.

Imports the FastAPI transport and uvicorn when it runs, not when the parser is built.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from genmcp.client.limits import ClientLimits

__all__ = ["TOKEN_ENV", "limits_of", "proxy_app", "register"]

TOKEN_ENV: Final = "GENMCP_PROXY_TOKEN"
_BOUND_FLAGS: Final[tuple[tuple[str, type[float], float, str, str], ...]] = (
    ("--max-message-bytes", int, 32 * 1024 * 1024, "N",
     "the largest response body or SSE event taken from the upstream (32 MiB)"),
    ("--max-pages", int, 1000, "N", "the most pages one upstream listing follows (1000)"),
    ("--max-items", int, 100_000, "N", "the most items one upstream listing collects (100000)"),
    ("--deadline", float, 300.0, "SECONDS",
     "seconds one upstream call may take in all (300; 0: no deadline)"),
)  # fmt: skip
"""The upstream bounds' flags (``ClientLimits``, read by ``limits_of``): flag, type,
default, metavar, help."""
EXAMPLES: Final = """\
examples:
  genmcp proxy http://127.0.0.1:3001/mcp --port 8000     # MCP at http://127.0.0.1:8000/mcp
  GENMCP_PROXY_TOKEN=... genmcp proxy https://api.example.com/mcp --timeout 30
  genmcp proxy http://127.0.0.1:3001/mcp --max-message-bytes 4194304 --deadline 30
  genmcp proxy http://127.0.0.1:3001/mcp --redis-url redis://127.0.0.1:6379/0  # N processes
  genmcp proxy http://127.0.0.1:3001/mcp --no-cache
"""


def proxy_app(
    url: str,
    *,
    path: str = "/mcp",
    headers: Mapping[str, str] | None = None,
    token: str | None = None,
    timeout_s: float = 10.0,
    protocol: str | None = None,
    limits: ClientLimits | None = None,
    cache: bool = True,
    redis_url: str | None = None,
    redis_prefix: str = "genmcp:",
) -> Any:
    """The FastAPI app serving ``url`` at ``path`` (both eras); ``protocol`` fixes the
    upstream's revision instead of probing it; ``limits`` bound the upstream; ``cache``
    False turns the response cache off; ``redis_url`` (else ``GENMCP_REDIS_URL``) scales
    the proxy out over that Redis, its response cache included."""
    from genmcp.compose.mount import Mount
    from genmcp.fastapi.router import mcp_app, mcp_router

    mount = Mount(
        url=url, resources=True, timeout_s=timeout_s, token=token, headers=headers,
        protocol=protocol, limits=limits, cache=None if cache else False,
    )  # fmt: skip
    router = mcp_router(
        mounts=[mount], server_name="genmcp-proxy", server_version="1",
        redis_url=redis_url, redis_prefix=redis_prefix,
    )  # fmt: skip
    return mcp_app(router, path=path, title=f"genmcp proxy of {url}")


def limits_of(args: argparse.Namespace, usage: type[Exception]) -> ClientLimits:
    """The ``ClientLimits`` the flags say (a value it refuses: a usage error)."""
    from genmcp.client.limits import ClientLimits

    deadline = None if args.deadline == 0 else args.deadline
    try:
        return ClientLimits(
            max_message_bytes=args.max_message_bytes, max_pages=args.max_pages,
            max_items=args.max_items, deadline_s=deadline,
        )  # fmt: skip
    except ValueError as exc:
        raise usage(f"proxy: {exc}") from None


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
    bounds = sub.add_argument_group("upstream bounds (genmcp.client.ClientLimits)")
    for flag, kind, default, metavar, text in _BOUND_FLAGS:
        bounds.add_argument(flag, type=kind, default=default, metavar=metavar, help=text)
    caching = sub.add_argument_group("response cache and scale-out")
    caching.add_argument(
        "--no-cache", action="store_true",
        help="ask the upstream every time (default: keep its answers as its ttlMs and "
        "cacheScope allow)",
    )  # fmt: skip
    caching.add_argument(
        "--redis-url", metavar="URL",
        help="scale out over this Redis (default: GENMCP_REDIS_URL): the proxy processes on "
        "it share sessions, tasks and the upstream's cached answers",
    )  # fmt: skip
    caching.add_argument(
        "--redis-prefix", default="genmcp:", metavar="PREFIX",
        help="the prefix of every Redis key (genmcp:)",
    )  # fmt: skip
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
        if not args.timeout > 0:
            raise usage(f"proxy: --timeout takes seconds > 0, got {args.timeout:g}")
        limits = limits_of(args, usage)
        token = os.environ.get(TOKEN_ENV) or None
        try:
            app = proxy_app(
                args.url, path=args.path, headers=headers_of(args.header), token=token,
                timeout_s=args.timeout, protocol=args.upstream_protocol, limits=limits,
                cache=not args.no_cache, redis_url=args.redis_url,
                redis_prefix=args.redis_prefix,
            )  # fmt: skip
        except (ValueError, ImportError) as exc:  # a Redis URL it cannot use, no redis
            raise usage(f"proxy: {exc}") from None
        loop, http = stack()
        where = f"http://{args.host}:{args.port}{args.path}"
        print(f"genmcp: proxy of {args.url} at {where} ({loop}, {http})", file=sys.stderr)
        from genmcp.transports.http.heads import protocol_for

        uvicorn.run(app, host=args.host, port=args.port, loop=loop, http=protocol_for(http))
        return 0

    sub.set_defaults(handler=handler)
