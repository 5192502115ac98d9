"""``genmcp install CLIENT TARGET``: write an MCP client's configuration for a server.

``TARGET`` is ``MODULE:ATTR`` (a Suite, router or app, run by the client over stdio with
``python -m genmcp run TARGET --transport stdio``) or an ``http(s)://`` URL of a running
server. The entry is merged into the client's JSON config under ``mcpServers.NAME``, other
entries kept; ``--dry-run`` prints the file it would write and writes nothing.

==============  =============================================================  =============
client          config file (``--config`` overrides)                           URL targets
==============  =============================================================  =============
claude-desktop  ``claude_desktop_config.json`` in Claude's app-data directory  no (stdio)
claude-code     ``.mcp.json`` in the current directory (the project's)         ``type: http``
cursor          ``~/.cursor/mcp.json``                                         ``url``
==============  =============================================================  =============

Imports the standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Final

__all__ = ["CLIENTS", "InstallError", "config_path", "entry_for", "install"]

CLIENTS: Final = ("claude-desktop", "claude-code", "cursor")


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
    if env:
        entry["env"] = env
    return entry


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

    def handler(args: argparse.Namespace) -> int:
        env = dict(pair.partition("=")[::2] for pair in args.env)
        headers = {k.strip(): v.strip() for k, _, v in (h.partition(":") for h in args.header)}
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
