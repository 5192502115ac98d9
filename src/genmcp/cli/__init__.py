"""The ``genmcp`` command line and the HTTP client it calls servers with.

``main`` (``cli.program``) parses and runs a command: serve a Suite, a router or an app; list
and call tools; look a server over (``cli.commands``); install it in a desktop client
(``cli.install``); answer elicitation on the terminal (``cli.form``). Calling uses
``cli.client``: the public ``genmcp.client.Client`` driven from blocking code (2026-07-28,
or a 2025 session for a server without it).
"""

from __future__ import annotations

from genmcp.cli.program import UsageError, as_app, build_parser, load_target, main, parse_arguments

__all__ = ["UsageError", "as_app", "build_parser", "load_target", "main", "parse_arguments"]
