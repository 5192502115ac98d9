"""The wire a ``Client`` target names: an ``http(s)://`` URL (``HTTPWire``), or a stdio command
as a list (``StdioWire``); anything else is refused before a byte is sent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import httpx

from genmcp.client.errors import ClientError
from genmcp.client.http import HTTPWire
from genmcp.client.limits import ClientLimits
from genmcp.client.stdio import StdioWire

__all__ = ["wire_for"]


def wire_for(
    target: str | Sequence[str],
    limits: ClientLimits,
    *,
    http: httpx.AsyncClient | None,
    timeout: float,
    auth: httpx.Auth | None,
    env: Mapping[str, str] | None,
    cwd: str | None,
) -> HTTPWire | StdioWire:
    """The wire to ``target``, its messages bounded by ``limits``: HTTP options for a URL,
    ``env`` and ``cwd`` for a command."""
    if isinstance(target, str):
        parts = httpx.URL(target) if "://" in target else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.host:
            raise ClientError(f"not an http(s) URL: {target!r}")
        return HTTPWire(target, http=http, timeout=timeout, auth=auth,
                        max_message_bytes=limits.max_message_bytes)  # fmt: skip
    return StdioWire(list(target), env=env, cwd=cwd, max_message_bytes=limits.max_message_bytes)
