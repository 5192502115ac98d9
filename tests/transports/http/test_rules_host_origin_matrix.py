"""Strict Host and Origin checks (issue 12, item 3), against a real uvicorn server.

The matrix builds every combination of host x port x userinfo x suffix, as a ``Host`` header
and as an ``Origin`` of two schemes (7 x 6 x 4 x 5 x 3 = 2,520 requests), and sends each as a
modern ``tools/list``. An oracle independent of the code under test says which are the
loopback server itself: those must be served (200), every other one refused (421 for a Host,
403 for an Origin). Before the strict parser, 208 of 1,680 such combinations passed.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest
from fastapi import FastAPI

from demo_tools import EchoTool
from genmcp import mcp_router
from support.client import ModernClient
from support.server import LiveServers

SECRET: Final = "host-origin-matrix-secret-key-0123456789"
HOSTS: Final = (
    "localhost",
    "127.0.0.1",
    "[::1]",
    "LocalHost",
    "evil.example",
    "localhost.evil.example",
    "127.0.0.1.nip.io",
)
LOOPBACK: Final = frozenset(("localhost", "127.0.0.1", "[::1]"))
PORTS: Final = ("", ":{P}", ":", ":99999", ":{P}x", ":0")
GOOD_PORTS: Final = frozenset(("", ":{P}"))
USERINFO: Final = ("", "evil.example@", "localhost@", "u:p@")
SUFFIXES: Final = ("", ".evil.example", "/", "@evil.example", "#x")
SLOTS: Final = ("Host", "http://", "https://")  # a Host header, or an Origin of that scheme


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    app = FastAPI()
    app.include_router(
        mcp_router(server_name="matrix", server_version="1", tools=[EchoTool], secret_key=SECRET),
        prefix="/mcp",
    )
    live = LiveServers()
    try:
        yield live(app)
    finally:
        live.stop_all()


def combinations(port: int) -> Iterator[tuple[str, str, bool]]:
    """(header name, value, legitimate) for every combination of the matrix."""
    for host, port_form, userinfo, suffix, slot in itertools.product(
        HOSTS, PORTS, USERINFO, SUFFIXES, SLOTS
    ):
        authority = userinfo + host + port_form.replace("{P}", str(port)) + suffix
        legit = host.lower() in LOOPBACK and port_form in GOOD_PORTS and not userinfo
        legit = legit and not suffix
        if slot == "Host":
            yield "Host", authority, legit
        else:
            yield "Origin", slot + authority, legit


@pytest.mark.long
async def test_the_hostile_matrix_has_no_accepted_confusion(base: str, modern_client: Any) -> None:
    port = int(base.rsplit(":", 1)[1])
    body, headers = modern_client(base).build("tools/list", id=1)
    cases = list(combinations(port))
    assert len(cases) == 2520
    limit = asyncio.Semaphore(8)
    outcomes: list[tuple[str, str, bool, int]] = []

    async with httpx.AsyncClient(base_url=base, verify=False) as http:

        async def send(name: str, value: str, legit: bool) -> None:
            async with limit:
                sent = {**headers, name: value}
                reply = await http.post("/mcp", json=body, headers=sent)
            outcomes.append((name, value, legit, reply.status_code))

        await asyncio.gather(*(send(*case) for case in cases))
    confusions = [o for o in outcomes if not o[2] and o[3] == 200]
    false_refusals = [o for o in outcomes if o[2] and o[3] != 200]
    wrong_status = [o for o in outcomes if not o[2] and o[3] != (421 if o[0] == "Host" else 403)]
    hostile = sum(1 for o in outcomes if not o[2])
    print(f"\nmatrix: {len(outcomes)} sent, {hostile} hostile, {len(confusions)} accepted")
    assert confusions == []
    assert false_refusals == []
    assert wrong_status == []
    assert len(outcomes) - hostile == 4 * 2 * 3  # 4 loopback spellings, 2 ports, 3 slots


@pytest.mark.parametrize(
    ("name", "value", "status"),
    [
        ("Origin", "http://localhost:{P}.evil.example", 403),
        ("Origin", "http://evil.example@localhost:{P}", 403),
        ("Host", "localhost:{P}.evil.example", 421),
        ("Host", "evil.example@localhost:{P}", 421),
        ("Host", "localhost:{P}/", 421),
        ("Host", "[::1]:{P}junk", 421),
        ("Host", "[fe80::1%25eth0]:{P}", 421),
        ("Origin", "http://[::1]:{P}/path", 403),
        ("Origin", "ftp://localhost:{P}", 403),
    ],
)
async def test_the_confusions_of_the_issue_are_refused(
    base: str, modern_client: Any, name: str, value: str, status: int
) -> None:
    port = base.rsplit(":", 1)[1]
    client: ModernClient = modern_client(base)
    reply = await client.request("tools/list", headers={name: value.replace("{P}", port)})
    assert reply.status == status
    assert reply.error["code"] == -32600 and name in reply.error["message"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "[::1]:{P}"},
        {"Host": "[0:0:0:0:0:0:0:1]:{P}"},
        {"Host": "[::1]:{P}", "Origin": "http://[::1]:{P}"},
        {"Origin": "https://[::1]"},
        {"Host": "LOCALHOST:{P}", "Origin": "HTTP://LOCALHOST:5173"},
    ],
)
async def test_ipv6_literals_and_case_keep_working(
    base: str, modern_client: Any, headers: dict[str, str]
) -> None:
    port = base.rsplit(":", 1)[1]
    client: ModernClient = modern_client(base)
    sent = {name: value.replace("{P}", port) for name, value in headers.items()}
    reply = await client.request("tools/list", headers=sent)
    assert reply.status == 200 and [tool["name"] for tool in reply.result["tools"]] == ["echo"]


@pytest.mark.parametrize(
    ("header", "status"), [("Host: localhost:{P}.evil.example", 421), ("Origin: null", 403)]
)
def test_the_guard_answers_before_the_body_arrives(base: str, header: str, status: int) -> None:
    port = base.rsplit(":", 1)[1]
    host = "" if header.startswith("Host") else f"Host: 127.0.0.1:{port}\r\n"
    head = (
        f"POST /mcp HTTP/1.1\r\n{host}{header.replace('{P}', port)}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as sock:
        sock.sendall(head.encode())
        answer = sock.recv(65536)  # no body is ever sent: any answer came before it
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:80]


async def test_allowed_hosts_are_normalized_once(live_server: Any, modern_client: Any) -> None:
    app = FastAPI()
    hosts = ["MCP.Example.COM", "[0:0::1]"]
    router = mcp_router(
        server_name="named",
        server_version="1",
        tools=[EchoTool],
        secret_key=SECRET,
        allowed_hosts=hosts,
    )
    app.include_router(router, prefix="/mcp")
    client: ModernClient = modern_client(live_server(app))
    for host in ("mcp.example.com:443", "[::1]:8000"):
        assert (await client.request("tools/list", headers={"Host": host})).status == 200
    assert (await client.request("tools/list", headers={"Host": "localhost"})).status == 421


@pytest.mark.parametrize("entry", ["localhost:8000", "http://localhost", "[::1]:80", "a/b", ""])
def test_an_allowed_host_with_a_port_or_scheme_is_refused_at_build(entry: str) -> None:
    with pytest.raises(ValueError, match="allowed_hosts entry"):
        mcp_router(server_name="x", server_version="1", secret_key=SECRET, allowed_hosts=[entry])
