"""The official conformance suite's authorization-server scenarios against the front
(examples/authorization_server.py over the real upstream): ``authorization-server-metadata-
endpoint`` and ``authorization-code-grant``, whose browser step (the URL the suite prints) is
played here: the front's consent, the upstream's sign-in, back to the suite's callback.

Opt-in (about 9 s): ``make auth-front`` runs it, with ``GENMCP_AUTH_FRONT=1``, after
``make conformance`` has installed the suite under .cache/conformance (without it the test
skips, and with ``CI`` set it fails).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from support.authorization_server import free_port
from support.required import unavailable

from .conftest import FRONT, MCP, approve
from .test_front import served

__all__ = ["served"]

ROOT: Final = Path(__file__).resolve().parents[3]
VERSION: Final = os.environ.get("CONFORMANCE_VERSION", "0.2.0-alpha.12")
CACHE: Final = Path(os.environ.get("CONFORMANCE_CACHE", ROOT / ".cache" / "conformance"))
CLI: Final = (CACHE / f"conformance-{VERSION}" / "node_modules" / "@modelcontextprotocol"
              / "conformance" / "dist" / "index.js")  # fmt: skip
BUNDLED: Final = CACHE / "node22" / "node_modules"

pytestmark = pytest.mark.skipif(not os.environ.get("GENMCP_AUTH_FRONT"),
                                reason="opt-in: make auth-front")  # fmt: skip


def _node() -> str | None:
    """A node >= 22: the system one, else the one scripts/conformance.sh installed."""
    for node in [shutil.which("node"), *map(str, BUNDLED.glob("node-linux-*/bin/node"))]:
        if node is None:
            continue
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
        if version.startswith("v") and int(version[1:].split(".")[0]) >= 22:
            return node
    return None


def _suite() -> list[str]:
    node = _node()
    if not CLI.is_file() or node is None:
        unavailable(f"the conformance suite is not under {CACHE} (make conformance installs it)",
                    "the authorization-server conformance scenarios")  # fmt: skip
    return [node, str(CLI), "authorization", "--url", FRONT]


def _checks(results: Path) -> list[dict[str, Any]]:
    found = sorted(results.glob("*/checks.json"))
    assert found, f"the suite left no checks.json in {results}"
    checks: list[dict[str, Any]] = []
    for path in found:
        checks += json.loads(path.read_text())
    return checks


async def _browse(url: str, callback: str) -> None:
    """The user's browser: the front's consent page, the upstream, then the suite's callback."""
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        for _ in range(12):
            response = await http.get(url)
            if url.startswith(callback):
                assert response.status_code == 200, response.text
                return
            if response.status_code == 200 and url.startswith(f"{FRONT}/authorize"):
                response = await approve(http, response)
            assert response.status_code in (302, 303), (url, response.status_code)
            url = str(response.url.join(response.headers["location"]))
    raise AssertionError("too many redirects")


async def test_the_authorization_server_scenarios_pass(served: Any, tmp_path: Path) -> None:
    """Both scenarios in one run (the code grant reads the metadata scenario's answer)."""
    port = free_port()
    callback = f"http://127.0.0.1:{port}/callback"
    async with httpx.AsyncClient(trust_env=False) as http:
        registered = await http.post(f"{FRONT}/register", json={"redirect_uris": [callback]})
    client_id = registered.json()["client_id"]
    suite = await asyncio.create_subprocess_exec(
        *_suite(), "--client-id", client_id,
        "--resource", MCP, "--port", str(port), "-o", str(tmp_path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert suite.stdout is not None
    lines: list[str] = []
    async with asyncio.timeout(60):
        while line := (await suite.stdout.readline()).decode():
            lines.append(line)
            if line.startswith(f"{FRONT}/authorize?"):
                await _browse(line.strip(), callback)
        await suite.wait()
    checks = _checks(tmp_path)
    assert suite.returncode == 0, "".join(lines)[-2000:]
    assert {c["id"]: c["status"] for c in checks} == {
        "authorization-server-metadata": "SUCCESS",
        "authorization-server-metadata-cimd": "SUCCESS",
        "authorization-code-grant": "SUCCESS",
    }, checks
