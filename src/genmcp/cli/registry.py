"""``genmcp registry``: a server describing itself, from its Suite.

``genmcp registry server-json APP`` writes the ``server.json`` the MCP registry publishes
(name, version, description, title, icons, the remote endpoint, packages where given);
``genmcp registry card APP --draft`` prints a Server Card per the current SEP-2127 draft
(to serve one, mount ``genmcp.fastapi.server_card.server_card_app``). ``APP`` is
``MODULE:ATTR`` naming a Suite, an MCP router or an app that mounts one (found as ``genmcp run``
finds it: ``transports.hosting.require_suite``). :func:`server_json_of` is the same as a
function, for a release script.

Imports the Suite's protocol builders; no HTTP.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final, Unpack

from genmcp.protocol.registry import Identity, package, server_card, server_json
from genmcp.protocol.versions import LEGACY_VERSIONS

__all__ = ["register", "server_json_of"]

_RUNTIMES: Final = {"pypi": "uvx", "npm": "npx", "oci": "docker", "nuget": "dnx"}
EXAMPLES: Final = """\
examples:
  genmcp registry server-json weather:suite --name io.github.you/weather \\
      --url https://weather.example.com/mcp --pypi weather-mcp --out server.json
  genmcp registry card weather:suite --name io.github.you/weather \\
      --url https://weather.example.com/mcp --draft
"""


def server_json_of(
    target: Any,
    *,
    name: str,
    url: str | None = None,
    packages: Mapping[str, Iterable[str]] | None = None,
    **identity: Unpack[Identity],
) -> dict[str, Any]:
    """The ``server.json`` of ``target``'s Suite (``TypeError`` when it has none).

    ``packages`` maps a registry type (``"pypi"``, ``"npm"``, ``"oci"``, ``"nuget"``) to the
    identifiers published there at the server's version, each run over stdio; ``identity``
    is ``description``, ``repository``, ``website_url``, as ``protocol.registry.server_json``
    takes them.
    """
    from genmcp.transports.hosting import require_suite

    suite = require_suite(target)
    version = str(suite.server_info.get("version", ""))
    entries = [
        package(kind, identifier, version, runtime_hint=_RUNTIMES.get(kind))
        for kind, identifiers in (packages or {}).items()
        for identifier in identifiers
    ]
    return server_json(suite.server_info, name=name, url=url, packages=entries, **identity)


def _repository(url: str | None) -> dict[str, str] | None:
    if url is None:
        return None
    source = "github" if "github.com" in url else "gitlab" if "gitlab" in url else "git"
    return {"url": url, "source": source}


def register(commands: Any, usage_error: type[Exception], load: Callable[[str, str], Any]) -> None:
    """Add ``genmcp registry``; ``load(spec, app_dir)`` imports ``APP``, and a mistake the
    user can fix is raised as ``usage_error``."""
    registry = commands.add_parser(
        "registry",
        help="write the MCP registry's server.json, or a draft Server Card, from a Suite",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = registry.add_subparsers(dest="document", required=True, metavar="DOCUMENT")
    describe = which.add_parser("server-json", help="the server.json to publish to the registry")
    card = which.add_parser("card", help="a Server Card (SEP-2127 draft: needs --draft)")
    for sub in (describe, card):
        sub.add_argument("app", metavar="MODULE:ATTR", help="the Suite, MCP router or app")
        sub.add_argument("--name", required=True, help="registry name: io.github.you/server")
        sub.add_argument("--description", help="what it does, at most 100 characters")
        sub.add_argument("--repository", help="the source repository URL")
        sub.add_argument("--website", help="the server's home page")
        sub.add_argument("--app-dir", default=".", help="import MODULE from this directory (.)")
        sub.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    describe.add_argument("--url", help="the public Streamable HTTP endpoint (a remote)")
    for kind in _RUNTIMES:
        describe.add_argument(
            f"--{kind}", action="append", default=[], metavar="IDENTIFIER",
            help=f"a {kind} package of this server, at its version",
        )  # fmt: skip
    card.add_argument("--url", required=True, help="the public Streamable HTTP endpoint")
    card.add_argument("--draft", action="store_true", help="accept that the card is a draft")
    card.add_argument("--no-legacy", action="store_true", help="list only 2026-07-28")

    def handler(args: argparse.Namespace) -> int:
        from genmcp.transports.hosting import require_suite

        try:
            suite = require_suite(load(args.app, args.app_dir))
            common: dict[str, Any] = {
                "name": args.name,
                "description": args.description,
                "repository": _repository(args.repository),
                "website_url": args.website,
            }
            if args.document == "card":
                versions = [*suite.supported_versions]
                if not args.no_legacy:
                    versions += LEGACY_VERSIONS
                document = server_card(
                    suite.server_info, url=args.url, draft=args.draft,
                    protocol_versions=versions, **common,
                )  # fmt: skip
            else:
                packages = {kind: getattr(args, kind) for kind in _RUNTIMES}
                document = server_json_of(suite, url=args.url, packages=packages, **common)
        except (TypeError, ValueError) as exc:
            raise usage_error(str(exc)) from None
        text = json.dumps(document, indent=2) + "\n"
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text, encoding="utf-8")
            print(f"wrote {args.out}", file=sys.stderr)
        return 0

    registry.set_defaults(handler=handler)
