"""The ``genmcp`` command line: serve a Suite, a router or an app; list and call tools.

The commands that look a server over (resources, prompts, completion, inspect) are in
``cli.commands``, ``install`` in ``cli.install``, the terminal elicitation form in
``cli.form``. Serving uses uvicorn (HTTP) or ``transports.stdio``. Calling runs the public
client, ``genmcp.client.Client`` (``cli.client`` drives it from blocking code): 2026-07-28
Streamable HTTP, or a 2025 session when the server has no 2026-07-28, with SSE replies read
as they arrive, so progress is printed as it comes. Mistakes a user can fix (a bad import
path, a refused connection, an unknown tool) are one line on stderr, never a traceback.

Exit status: 0 done, 1 the call failed (an error result, a JSON-RPC error, no server),
2 bad usage (arguments, import path), 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final

from genmcp.cli import commands as cli_commands
from genmcp.cli import dev as cli_dev
from genmcp.cli import install as cli_install
from genmcp.cli import proxy as cli_proxy
from genmcp.cli import registry as cli_registry
from genmcp.cli.client import CLIError, HTTPClient
from genmcp.cli.form import ask_on_terminal
from genmcp.protocol.methods import MESSAGE, PROGRESS

__all__ = ["UsageError", "as_app", "build_parser", "load_target", "main", "parse_arguments"]

DEFAULT_PATH: Final = "/mcp"
_APP_ENV: Final = "GENMCP_APP"

EPILOG: Final = """\
examples:
  genmcp run examples.app:app                       # HTTP on http://127.0.0.1:8000
  genmcp dev examples.app:app                       # with reload and /mcp/docs
  genmcp run myserver:suite --transport stdio       # for Claude Desktop and other clients
  genmcp list http://127.0.0.1:8000/mcp
  genmcp call http://127.0.0.1:8000/mcp add --arg a=1 --arg b=2
  genmcp inspect http://127.0.0.1:8000/mcp
  genmcp proxy http://127.0.0.1:3001/mcp --port 8000  # serve it in both eras
  genmcp install claude-desktop myserver:suite --dry-run
"""


LIST_EXAMPLES: Final = """\
examples:
  genmcp list http://127.0.0.1:8000/mcp
  genmcp list http://127.0.0.1:8000/mcp --json
"""
CALL_EXAMPLES: Final = """\
examples:
  genmcp call http://127.0.0.1:8000/mcp add --arg a=1 --arg b=2
  genmcp call http://127.0.0.1:8000/mcp greet --arg name=Ann --arg excited=true --json
  genmcp call https://example.com/mcp search --arg 'tags=["a","b"]' \\
      --header 'Authorization: Bearer TOKEN' --log-level info

Progress and logs go to stderr as they arrive; the result goes to stdout.
"""
_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class UsageError(Exception):
    """Raised for a mistake in what the user asked (exit status 2)."""


# -- loading what to serve --------------------------------------------------------------


def load_target(spec: str, app_dir: str = ".") -> Any:
    """Import ``MODULE:ATTR`` (ATTR may be dotted) with ``app_dir`` first on ``sys.path``."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:ATTR (e.g. examples.app:app), got {spec!r}")
    directory = os.path.abspath(app_dir)
    if not os.path.isdir(directory):
        raise UsageError(f"--app-dir {app_dir!r} is not a directory")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            message = f"cannot import {module_name!r}: no module named {exc.name!r}"
            raise UsageError(message) from None
        raise  # a module *inside* the user's code is missing: their traceback helps
    target: Any = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}") from None
    return target


def as_app(target: Any, path: str = DEFAULT_PATH) -> Any:
    """An ASGI app for ``target``: a Suite or router mounted at ``path``, or the app itself."""
    from genmcp.fastapi.router import MCPRouter, mcp_app
    from genmcp.suite import Suite

    if isinstance(target, Suite | MCPRouter):
        return mcp_app(target, path=path)
    if callable(target) and not isinstance(target, type):
        return target
    raise UsageError(f"cannot serve {target!r}: expected a Suite, an MCPRouter or an ASGI app")


def reload_app() -> Any:
    """The app factory uvicorn imports in each reloaded process (``--reload``)."""
    spec, path, app_dir = json.loads(os.environ[_APP_ENV])
    return as_app(load_target(spec, app_dir), path)


def _run(args: argparse.Namespace) -> int:
    if args.transport == "stdio":
        from genmcp.fastapi.lifespan import LifespanError
        from genmcp.fastapi.stdio_app import AuthRequired
        from genmcp.transports.hosting import require_suite
        from genmcp.transports.stdio import run_stdio

        if args.reload:
            raise UsageError("--reload works with --transport http only")
        target = load_target(args.target, args.app_dir)
        try:
            require_suite(target)
        except TypeError as exc:
            raise UsageError(str(exc)) from None
        options: dict[str, Any] = {"headers": {**_env_headers(), **_headers(args.header)}}
        if args.assigns is not None:
            options["assigns"] = _assigns(args.assigns)
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
        try:
            run_stdio(target, **options)
        except (AuthRequired, LifespanError) as exc:
            raise UsageError(str(exc)) from None
        return 0
    import uvicorn

    target = load_target(args.target, args.app_dir)
    app = as_app(target, args.path)  # fails early, also with --reload
    loop, http = fast_stack()
    from genmcp.transports.http.heads import protocol_for

    protocol = protocol_for(http)
    where = f"MCP at http://{args.host}:{args.port}{args.path}" if app is not target else "serving"
    print(f"genmcp: {where} ({loop}, {http})", file=sys.stderr)
    if args.reload:
        os.environ[_APP_ENV] = json.dumps([args.target, args.path, args.app_dir])
        uvicorn.run(
            "genmcp.cli.program:reload_app",
            factory=True,
            reload=True,
            reload_dirs=[os.path.abspath(args.app_dir)],
            host=args.host,
            port=args.port,
            loop=loop,
            http=protocol,
        )
    else:
        uvicorn.run(app, host=args.host, port=args.port, loop=loop, http=protocol)
    return 0


def fast_stack() -> tuple[str, str]:
    """The event loop and HTTP parser to serve with: uvloop and httptools when installed
    (genmcp depends on both where they have wheels: about 1.8x the requests per core of
    asyncio's loop and h11), else uvicorn's pure-Python pair."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return loop, http


# -- calling a server -------------------------------------------------------------------


def parse_arguments(pairs: Sequence[str]) -> dict[str, Any]:
    """``["a=1", "name=Ann"]`` -> ``{"a": 1, "name": "Ann"}``: JSON when it parses, else text."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--arg {pair!r}: expected KEY=VALUE")
        try:
            arguments[key] = json.loads(raw)
        except ValueError:
            arguments[key] = raw
    return arguments


def _header_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``-H 'NAME: VALUE'``, as often as needed; :func:`_headers` reads what was given."""
    parser.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", help=help
    )


def _env_headers() -> dict[str, str]:
    """The headers ``genmcp install`` put in ``GENMCP_STDIO_HEADERS`` (a JSON object) for a
    stdio server: stdio has no HTTP headers, and the environment keeps a token out of
    the process list. ``--header`` wins over it, name by name."""
    raw = os.environ.get("GENMCP_STDIO_HEADERS", "").strip()
    if not raw:
        return {}
    try:
        given = json.loads(raw)
    except ValueError:
        given = None
    if not isinstance(given, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in given.items()
    ):
        raise UsageError('GENMCP_STDIO_HEADERS must be a JSON object of strings: {"Name": "value"}')
    return given


def _headers(pairs: Sequence[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for header in pairs:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header {header!r}: expected 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


def _assigns(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        example = '{"principal": "me"}'
        raise UsageError(f"--assigns {raw!r}: expected a JSON object, e.g. '{example}'")
    return value


def _client(args: argparse.Namespace) -> HTTPClient:
    """The client of a command; ``call`` declares elicitation unless ``--no-input``."""
    interactive = args.command == "call" and not args.no_input
    return HTTPClient(
        args.url,
        headers=_headers(args.header),
        timeout=args.timeout,
        capabilities={"elicitation": {}} if interactive else None,
        on_request=ask_on_terminal if interactive else None,
    )


def _list(args: argparse.Namespace) -> int:
    client = _client(args)
    try:
        tools = client.list_tools()
    finally:
        client.close()
    if args.json:
        print(json.dumps(tools, indent=2, ensure_ascii=False))
        return 0
    width = max((len(tool["name"]) for tool in tools), default=0)
    for tool in tools:
        about = (tool.get("title") or tool.get("description") or "").strip().splitlines()
        print(f"{tool['name']:<{width}}  {about[0] if about else ''}".rstrip())
    return 0


def _call(args: argparse.Namespace) -> int:
    arguments = parse_arguments(args.arg)
    client = _client(args)
    try:
        return _call_with(args, client, arguments)
    finally:
        client.close()


def _call_with(args: argparse.Namespace, client: HTTPClient, arguments: dict[str, Any]) -> int:
    tools = {tool["name"]: tool for tool in client.list_tools()}
    tool = tools.get(args.tool)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        raise CLIError(f"unknown tool {args.tool!r} at {args.url} (tools: {known})")
    result = client.call_tool(
        args.tool,
        arguments,
        on_notification=_show_notification,
        log_level=args.log_level,
    )
    if result.get("resultType") == "input_required":
        keys = ", ".join(sorted(result.get("inputRequests") or {})) or "a later retry"
        raise CLIError(f"{args.tool!r} asks for input ({keys}); run without --no-input to answer")
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for line in _render(result):
            print(line)
    if result.get("isError"):
        print(f"genmcp: {args.tool!r} reported an error", file=sys.stderr)
        return 1
    return 0


def _show_notification(message: dict[str, Any]) -> None:
    """Print progress and logs to stderr as they arrive (stdout keeps the result)."""
    params = message.get("params") or {}
    if message.get("method") == PROGRESS:
        total = params.get("total")
        done = f"{params.get('progress')}" + (f"/{total}" if total is not None else "")
        note = f" {params['message']}" if params.get("message") else ""
        print(f"progress {done}{note}", file=sys.stderr, flush=True)
    elif message.get("method") == MESSAGE:
        logger = f" {params['logger']}:" if params.get("logger") else ""
        data = params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        print(f"[{params.get('level')}]{logger} {text}", file=sys.stderr, flush=True)


def _render(result: dict[str, Any]) -> list[str]:
    lines = []
    for block in result.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            lines.append(block.get("text", ""))
        elif kind in ("image", "audio"):
            size = len(block.get("data", "")) * 3 // 4
            lines.append(f"[{kind} {block.get('mimeType')}, about {size} bytes]")
        elif kind == "resource_link":
            lines.append(f"[resource link {block.get('uri')}]")
        elif kind == "resource":
            inner = block.get("resource") or {}
            lines.append(inner.get("text") or f"[resource {inner.get('uri')}]")
        else:
            lines.append(json.dumps(block, ensure_ascii=False))
    if not lines and "structuredContent" in result:
        lines.append(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False))
    return lines


# -- the parser -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The ``genmcp`` argument parser, with its subcommands."""
    parser = argparse.ArgumentParser(
        prog="genmcp",
        description="Serve MCP tools, and call them from a terminal.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="serve a Suite, an MCPRouter or an ASGI app",
        description="Serve MODULE:ATTR. A Suite or an MCPRouter is mounted at --path in a "
        "FastAPI app; an ASGI app is served as it is. With --transport stdio the Suite "
        "(or the one an app mounts) talks newline-delimited JSON-RPC on stdin/stdout.",
        epilog="examples:\n  genmcp run examples.app:app --port 8000 --reload\n"
        "  genmcp run myserver:suite --transport stdio\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("target", metavar="MODULE:ATTR", help="what to serve, e.g. examples.app:app")
    run.add_argument("--transport", choices=("http", "stdio"), default="http")
    run.add_argument("--host", default="127.0.0.1", help="HTTP bind address (127.0.0.1)")
    run.add_argument("--port", type=int, default=8000, help="HTTP port (8000)")
    run.add_argument("--path", default=DEFAULT_PATH, help="where a Suite/router is mounted")
    run.add_argument("--reload", action="store_true", help="restart when source files change")
    run.add_argument("--app-dir", default=".", help="import MODULE from this directory (.)")
    _header_option(run, "stdio: a header the app's auth dependency reads (run once at startup)")
    run.add_argument(
        "--assigns",
        metavar="JSON",
        help="stdio: channel.assigns of every call, instead of running the auth dependency",
    )
    run.set_defaults(handler=_run)

    listing = _client_command(commands, "list", _list, "list the tools of a running server")
    listing.epilog = LIST_EXAMPLES
    calling = _client_command(commands, "call", _call, "call a tool on a running server")
    calling.epilog = CALL_EXAMPLES
    calling.add_argument("tool", metavar="TOOL", help="the tool name")
    calling.add_argument(
        "-a",
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an argument; VALUE is JSON when it parses (1, true, [1,2], null), else text",
    )
    calling.add_argument(
        "--log-level", choices=_LEVELS, metavar="LEVEL", help="print the tool's logs from LEVEL"
    )
    calling.add_argument(
        "--no-input", action="store_true", help="do not declare elicitation (never ask on stdin)"
    )
    cli_commands.register(commands, _client_command, _client, parse_arguments)
    cli_install.register(commands, UsageError)
    cli_proxy.register(commands, UsageError, _headers, fast_stack)
    cli_registry.register(commands, UsageError, load_target)
    cli_dev.register(commands, UsageError, load_target, as_app, _run)
    return parser


def _client_command(
    commands: Any, name: str, handler: Callable[[argparse.Namespace], int], about: str
) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = commands.add_parser(
        name,
        help=about,
        description=f"{about[0].upper()}{about[1:]}, speaking MCP over HTTP (2026-07-28, "
        "or a 2025 session when the server has no 2026-07-28).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument("url", metavar="URL", help="the MCP endpoint, e.g. http://host:8000/mcp")
    sub.add_argument("--json", action="store_true", help="print the raw JSON result")
    _header_option(sub, "a header")
    sub.add_argument("--timeout", type=float, default=60.0, help="seconds per read (60)")
    sub.set_defaults(handler=handler)
    return sub


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
        sys.stdout.flush()  # a closed pipe fails here, not in the interpreter's exit
    except UsageError as exc:
        print(f"genmcp: error: {exc}", file=sys.stderr)
        return 2
    except CLIError as exc:
        print(f"genmcp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("genmcp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `genmcp inspect URL | head`: the reader left, nothing to say
        _quiet_stdout()
        return 141  # 128 + SIGPIPE, as a shell reports a command its pipe closed on
    return status


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: flushing at exit must not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
