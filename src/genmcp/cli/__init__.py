"""The ``genmcp`` command line and the HTTP client it calls servers with.

``main`` (``cli.main``) parses and runs a command: serve a Suite, a router or an app; list
and call tools; look a server over (``cli.commands``); install it in a desktop client
(``cli.install``); answer elicitation on the terminal (``cli.form``). Calling uses
``cli.client`` (a blocking client on the standard library's ``http.client``) and, for a
server without 2026-07-28, a 2025 session (``cli.legacy_session``).
"""

from __future__ import annotations

from genmcp.cli.main import UsageError, as_app, build_parser, load_target, main, parse_arguments

__all__ = ["UsageError", "as_app", "build_parser", "load_target", "main", "parse_arguments"]
