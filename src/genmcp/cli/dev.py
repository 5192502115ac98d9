"""``genmcp dev MODULE:ATTR``: serve an app for development, with its interactive page.

The app is served as ``genmcp run --reload`` serves it (uvicorn's reload: a change of a
source file under ``--app-dir`` restarts the server, and the page reconnects by itself), on
loopback unless ``--host`` says otherwise, with ``GENMCP_DOCS=1`` in the environment so
every ``mcp_router``/``tenants_router`` not given ``docs=`` serves its page; the page's URL
(one per MCP endpoint) is printed before serving.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from genmcp.docsui import DOCS_ENV, DocsPage

__all__ = ["docs_paths", "register"]


def docs_paths(routes: Sequence[Any], prefix: str = "", depth: int = 0) -> Iterator[str]:
    """The full path of every page route of ``routes``, through includes and mounts."""
    from genmcp.fastapi.compat import included

    for route in routes:
        include = included(route)  # FastAPI's lazy include
        if include is not None:
            if depth < 8:
                inner, more = include
                yield from docs_paths(getattr(inner, "routes", ()), prefix + more, depth + 1)
            continue
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            continue
        if isinstance(getattr(route, "endpoint", None), DocsPage):
            yield prefix + path
        mounted = getattr(getattr(route, "app", None), "routes", None)  # a Mount
        if mounted is not None and depth < 8:
            yield from docs_paths(mounted, prefix + path, depth + 1)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def register(
    commands: Any,
    usage_error: type[Exception],
    load: Callable[[str, str], Any],
    as_app: Callable[[Any, str], Any],
    run: Callable[[argparse.Namespace], int],
) -> None:
    """Add ``genmcp dev``: ``load``/``as_app`` find the app, ``run`` serves it (``genmcp run``)."""
    sub = commands.add_parser(
        "dev",
        help="serve an app with reload and its interactive page (/docs of each endpoint)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        epilog="examples:\n  genmcp dev app:app\n"
        "  genmcp dev shop:app --app-dir examples --port 8001\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument("target", metavar="MODULE:ATTR", help="what to serve, e.g. app:app")
    sub.add_argument("--host", default="127.0.0.1", help="HTTP bind address (127.0.0.1)")
    sub.add_argument("--port", type=int, default=8000, help="HTTP port (8000)")
    sub.add_argument("--path", default="/mcp", help="where a Suite/router is mounted (/mcp)")
    sub.add_argument("--app-dir", default=".", help="import MODULE from this directory (.)")

    def handler(args: argparse.Namespace) -> int:
        os.environ[DOCS_ENV] = "1"  # before the import: routers built without docs= serve it
        app = as_app(load(args.target, args.app_dir), args.path)
        routes = getattr(getattr(app, "router", None), "routes", ())
        pages = sorted(set(docs_paths(routes)))
        if not pages:
            raise usage_error(
                f"{args.target} serves no interactive page: its routers were given docs=False, "
                "or it mounts no genmcp endpoint"
            )
        for path in pages:
            print(f"genmcp: the docs page: http://{args.host}:{args.port}{path}", file=sys.stderr)
        if not _loopback(args.host):
            print(
                f"genmcp: warning: serving on {args.host}: the page and reload are for "
                "development; anyone who reaches this address sees the page",
                file=sys.stderr,
            )
        serving = argparse.Namespace(
            target=args.target, transport="http", host=args.host, port=args.port,
            path=args.path, reload=True, app_dir=args.app_dir, header=[], assigns=None,
        )  # fmt: skip
        return run(serving)

    sub.set_defaults(handler=handler)
