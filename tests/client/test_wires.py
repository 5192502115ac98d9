"""client.wires: a target names its wire; a target that names none is refused before a byte
is sent, a URL nothing answers at is a ``ClientError`` at the first request.
"""

from __future__ import annotations

import pytest

from genmcp.client import Client, ClientError


async def test_bad_targets_are_clear_errors() -> None:
    with pytest.raises(ClientError, match="not an http"):
        Client("ftp://example.com/mcp")
    async with Client("http://127.0.0.1:9/mcp", timeout=2) as client:
        with pytest.raises(ClientError, match="connection refused"):
            await client.list_tools()
