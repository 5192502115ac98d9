"""``genmcp install CLIENT TARGET``: write an MCP client's configuration for a server.

``TARGET`` is ``MODULE:ATTR`` (a Suite, router or app, run by the client over stdio with
``python -m genmcp run TARGET --transport stdio``) or an ``http(s)://`` URL of a running
server. The entry is merged into the client's JSON config under ``mcpServers.NAME``, other
entries kept; ``--dry-run`` prints the file it would write and writes nothing.

What would fail at the client's launch is refused here instead (exit status 2, the fix in
the message): a ``MODULE:ATTR`` that does not import (checked in a child process with the
entry's environment; ``--no-check`` skips it), and a weak ``GENMCP_SECRET_KEY`` given with
``-e`` (:func:`weak_key`). ``-H`` headers of a stdio target travel in the entry's
environment as ``GENMCP_STDIO_HEADERS`` (JSON): stdio has no HTTP headers, ``genmcp run
--transport stdio`` hands them to the app's auth dependency as ``--header`` would, and the
environment keeps a token out of the process list (where arguments are visible to
every user).

==============  =============================================================  =============
client          config file (``--config`` overrides)                           URL targets
==============  =============================================================  =============
claude-desktop  ``claude_desktop_config.json`` in Claude's app-data directory  no (stdio)
claude-code     ``.mcp.json`` in the current directory (the project's)         ``type: http``
cursor          ``~/.cursor/mcp.json``                                         ``url``
==============  =============================================================  =============

Imports the standard library and ``genmcp.sealing``'s key rule.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

from genmcp.sealing import MIN_KEY_BYTES

__all__ = [
    "CLIENTS",
    "HEADERS_ENV",
    "InstallError",
    "check_target",
    "config_path",
    "entry_for",
    "install",
    "weak_key",
]

CLIENTS: Final = ("claude-desktop", "claude-code", "cursor")
HEADERS_ENV: Final = "GENMCP_STDIO_HEADERS"
"""The environment variable that carries a stdio server's headers (a JSON object)."""
MIN_DISTINCT: Final = 8
"""Fewest distinct characters in a secret key ``install`` accepts (``aaaa...`` is no key)."""
_CHECK: Final = (
    "import sys\n"
    "from genmcp.cli.program import UsageError, load_target\n"
    "from genmcp.transports.hosting import require_suite\n"
    "try:\n"
    "    require_suite(load_target(sys.argv[1], sys.argv[2]))\n"
    "except (UsageError, TypeError) as exc:\n"
    "    print(exc, file=sys.stderr)\n"
    "    sys.exit(2)\n"
)


class InstallError(Exception):
    """A target the client cannot run, or a config file that is not a JSON object."""


def config_path(client: str) -> Path:
    """Where ``client`` reads its MCP servers from on this system."""
    home = Path.home()
    if client == "claude-code":
        return Path.cwd() / ".mcp.json"
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return base / "Claude" / "claude_desktop_config.json"


def entry_for(
    client: str, target: str, *, app_dir: str, env: dict[str, str], headers: dict[str, str]
) -> dict[str, Any]:
    """The ``mcpServers`` entry that runs or reaches ``target``."""
    if target.startswith(("http://", "https://")):
        if client == "claude-desktop":
            raise InstallError(
                "Claude Desktop starts local servers only (stdio): give MODULE:ATTR, or add "
                "the URL as a custom connector in Claude's settings"
            )
        entry: dict[str, Any] = (
            {"type": "http", "url": target} if client == "claude-code" else {"url": target}
        )
        if headers:
            entry["headers"] = headers
        return entry
    if ":" not in target:
        raise InstallError(f"expected MODULE:ATTR or an http(s) URL, got {target!r}")
    args = ["-m", "genmcp", "run", target, "--transport", "stdio"]
    args += ["--app-dir", str(Path(app_dir).resolve())]
    entry = {"command": sys.executable, "args": args}
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    if headers:  # stdio has no HTTP headers: the environment carries them to genmcp run
        env = {**env, HEADERS_ENV: json.dumps(headers, ensure_ascii=False)}
    if env:
        entry["env"] = env
    return entry


def weak_key(value: str) -> str | None:
    """Why ``value`` is too weak a ``GENMCP_SECRET_KEY`` (None: it will do).

    Weak: any key of the list (comma-separated, for rotation) shorter than
    ``MIN_KEY_BYTES`` (32) bytes as UTF-8 (the server would refuse it at start-up), or with
    fewer than ``MIN_DISTINCT`` (8) distinct characters (``aaaa...``, ``abab...``: long, yet
    guessable). A random key (``python -c "import secrets; print(secrets.token_urlsafe(32))"``)
    is 43 characters of ~64 kinds.
    """
    keys = [key.strip() for key in value.split(",") if key.strip()]
    if not keys:
        return "GENMCP_SECRET_KEY is empty"
    for key in keys:
        size = len(key.encode("utf-8", "surrogateescape"))
        if size < MIN_KEY_BYTES:
            return f"GENMCP_SECRET_KEY is {size} bytes long; at least {MIN_KEY_BYTES} are needed"
        if len(set(key)) < MIN_DISTINCT:
            return (
                f"GENMCP_SECRET_KEY has only {len(set(key))} distinct characters; a random "
                "key has dozens"
            )
    return None


def check_target(target: str, app_dir: str, env: dict[str, str], timeout_s: float = 60.0) -> None:
    """``InstallError`` unless ``MODULE:ATTR`` imports and holds something stdio can serve.

    Run in a child process with the entry's environment, as the client will: the target's
    import-time code runs there, never in this process.
    """
    directory = Path(app_dir)
    if not directory.is_dir():
        raise InstallError(f"--app-dir {app_dir!r} is not a directory")
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHECK, target, str(directory.resolve())],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InstallError(
            f"importing {target!r} took over {timeout_s:g} s; pass --no-check to skip the check"
        ) from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        why = lines[-1] if lines else f"exit status {done.returncode}"
        raise InstallError(
            f"{target!r} cannot be served from {app_dir!r}: {why} (fix the target or "
            "--app-dir; --no-check skips this check)"
        )


def install(
    client: str,
    name: str,
    entry: dict[str, Any],
    *,
    path: Path,
    dry_run: bool = False,
) -> str:
    """Merge ``entry`` as ``mcpServers[name]`` into ``path``; the text written (or shown)."""
    config: Any = {}
    if path.exists():
        try:
            config = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise InstallError(f"{path} is not valid JSON ({exc}); fix or move it first") from None
    if not isinstance(config, dict) or not isinstance(config.setdefault("mcpServers", {}), dict):
        raise InstallError(f"{path}: expected a JSON object with an mcpServers object")
    config["mcpServers"][name] = entry
    text = json.dumps(config, indent=2, ensure_ascii=False) + "\n"
    if not dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".genmcp-tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    return text


def register(commands: Any, usage_error: type[Exception]) -> None:
    """Add ``genmcp install``; an ``InstallError`` is raised as ``usage_error``."""
    sub = commands.add_parser(
        "install",
        help="add a server to Claude Desktop, Claude Code or Cursor",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        epilog="examples:\n  genmcp install claude-desktop shop_app:app --name shop\n"
        "  genmcp install claude-code http://127.0.0.1:8000/mcp --name shop --dry-run\n"
        "  genmcp install cursor myserver:suite -e GENMCP_SECRET_KEY=...\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument("client", choices=CLIENTS)
    sub.add_argument("target", metavar="MODULE:ATTR|URL")
    sub.add_argument("--name", help="the server's name in the config (default: from TARGET)")
    sub.add_argument("--app-dir", default=".", help="import MODULE from this directory (.)")
    sub.add_argument("--config", type=Path, help="the config file (default: the client's)")
    sub.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    sub.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'")
    sub.add_argument("--dry-run", action="store_true", help="print the config, write nothing")
    sub.add_argument(
        "--no-check", action="store_true", help="do not import MODULE:ATTR to check it first"
    )

    def handler(args: argparse.Namespace) -> int:
        env = dict(pair.partition("=")[::2] for pair in args.env)
        headers = {k.strip(): v.strip() for k, _, v in (h.partition(":") for h in args.header)}
        if "GENMCP_SECRET_KEY" in env and (weak := weak_key(env["GENMCP_SECRET_KEY"])):
            raise usage_error(
                f'{weak}; generate one: python -c "import secrets; '
                'print(secrets.token_urlsafe(32))"'
            )
        stdio = not args.target.startswith(("http://", "https://"))
        if stdio and ":" in args.target and not args.no_check:
            try:
                check_target(args.target, args.app_dir, env)
            except InstallError as exc:
                raise usage_error(str(exc)) from None
        default = args.target.rstrip("/").rsplit("/", 1)[-1].partition(":")[0].split(".")[-1]
        name = args.name or default or "genmcp"
        path = args.config or config_path(args.client)
        try:
            entry = entry_for(args.client, args.target, app_dir=args.app_dir, env=env,
                              headers=headers)  # fmt: skip
            text = install(args.client, name, entry, path=path, dry_run=args.dry_run)
        except InstallError as exc:
            raise usage_error(str(exc)) from None
        if args.dry_run:
            print(f"# {path} (dry run: not written)\n{text}", end="")
        else:
            print(f"added {name!r} to {path}; restart {args.client} to load it", file=sys.stderr)
        return 0

    sub.set_defaults(handler=handler)
