"""Sealed tokens are bound to their server and have one encoding (issue 12, item 4).

One FastAPI app on a real uvicorn server mounts four routers that share one secret key and
serve the same tools: ``alpha`` and ``beta`` (audience = their server names), ``gamma`` and
``delta`` (both ``audience="shared"``, as several processes of one app would be). A
``requestState``, a cursor or a legacy session id minted by one router is refused by another
of a different audience with the precise error (-32602 ``reason: "audience"``, 404 for a
session) and accepted by a router of the same audience. Flipping the unused low bits of the
last base64 character of any token part (same bytes, another spelling) is refused too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest
from fastapi import FastAPI

from demo_tools import ConfirmTool, EchoTool
from genmcp import mcp_router
from genmcp.sealing import Sealer, SealError
from support.client import ModernClient
from support.legacy_client import LegacyClient
from support.server import LiveServers

SECRET: Final = "token-audience-test-secret-key-0123456789"
CAPS: Final = {"elicitation": {}}
B64: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
ROUTERS: Final = {"alpha": None, "beta": None, "gamma": "shared", "delta": "shared"}


def make_app() -> FastAPI:
    app = FastAPI()
    for name, audience in ROUTERS.items():
        options: dict[str, Any] = {} if audience is None else {"audience": audience}
        router = mcp_router(
            server_name=name,
            server_version="1.0.0",
            tools=[ConfirmTool, EchoTool],
            secret_key=SECRET,
            page_size=1,
            **options,
        )
        app.include_router(router, prefix=f"/{name}")
    return app


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(make_app())
    finally:
        live.stop_all()


@pytest.fixture
def client(base: str, modern_client: Any) -> Any:
    return lambda name: modern_client(base, f"/{name}")


def segments(token: str) -> list[str]:
    """The base64 parts of a token: payload, timestamp, signature."""
    return token.partition(".")[2].removeprefix(".").split(".")


def flippable(token: str) -> list[int]:
    """The parts whose last character has unused low bits (length not a multiple of 4)."""
    return [i for i, segment in enumerate(segments(token)) if len(segment) % 4]


def low_bits_flipped(token: str, part: int) -> str:
    """``token`` with the unused low bits of the last character of ``part`` changed."""
    head, _, body = token.partition(".")  # "v1"
    dot = "." if body.startswith(".") else ""  # "." marks a compressed payload
    parts = segments(token)
    segment = parts[part]
    bits = {2: 0b1111, 3: 0b11}[len(segment) % 4]
    index = B64.index(segment[-1])
    parts[part] = segment[:-1] + B64[index ^ bits]
    return head + "." + dot + ".".join(parts)


async def state_from(client: ModernClient) -> str:
    first = await client.request(
        "tools/call", {"name": "confirm", "arguments": {"question": "ok?"}}, capabilities=CAPS
    )
    token: str = first.result["requestState"]
    return token


async def redeem(client: ModernClient, token: str) -> Any:
    params = {
        "name": "confirm",
        "arguments": {"question": "ok?"},
        "inputResponses": {"ok": {"action": "accept", "content": {"ok": True}}},
        "requestState": token,
    }
    return await client.request("tools/call", params, capabilities=CAPS)


# -- requestState ------------------------------------------------------------------------


async def test_a_request_state_is_redeemed_where_it_was_minted(client: Any) -> None:
    alpha = client("alpha")
    reply = await redeem(alpha, await state_from(alpha))
    assert reply.result["structuredContent"] == {"confirmed": True, "rounds": 2}


@pytest.mark.parametrize(("minted", "redeemed"), [("alpha", "beta"), ("beta", "gamma")])
async def test_a_request_state_of_another_router_is_refused_as_audience(
    client: Any, minted: str, redeemed: str
) -> None:
    token = await state_from(client(minted))
    reply = await redeem(client(redeemed), token)
    error = reply.error
    assert reply.status == 200 and error["code"] == -32602
    assert error["data"] == {"reason": "audience"}
    assert error["message"].startswith("Invalid requestState (audience)")
    assert "another server" in error["message"]


async def test_routers_with_one_explicit_audience_share_request_states(client: Any) -> None:
    reply = await redeem(client("delta"), await state_from(client("gamma")))
    assert reply.result["structuredContent"] == {"confirmed": True, "rounds": 2}


async def test_a_request_state_with_flipped_low_bits_is_refused(client: Any) -> None:
    alpha = client("alpha")
    token = await state_from(alpha)
    assert flippable(token)
    for part in flippable(token):
        reply = await redeem(alpha, low_bits_flipped(token, part))
        assert reply.error["code"] == -32602, part
        assert reply.error["data"] == {"reason": "tampered"}, part
    assert (await redeem(alpha, token)).result["structuredContent"]["confirmed"] is True


# -- cursors -------------------------------------------------------------------------------


async def next_cursor(client: ModernClient) -> str:
    page = await client.request("tools/list")
    cursor: str = page.result["nextCursor"]
    return cursor


async def test_a_cursor_pages_on_its_own_router(client: Any) -> None:
    alpha = client("alpha")
    page = await alpha.request("tools/list", {"cursor": await next_cursor(alpha)})
    assert [tool["name"] for tool in page.result["tools"]] == ["echo"]


async def test_a_cursor_of_another_router_is_refused(client: Any) -> None:
    cursor = await next_cursor(client("alpha"))
    reply = await client("beta").request("tools/list", {"cursor": cursor})
    assert reply.error["code"] == -32602
    assert reply.error["message"].startswith("Invalid cursor:")
    assert "another server" in reply.error["message"]


async def test_a_cursor_is_shared_by_routers_of_one_audience(client: Any) -> None:
    cursor = await next_cursor(client("gamma"))
    page = await client("delta").request("tools/list", {"cursor": cursor})
    assert [tool["name"] for tool in page.result["tools"]] == ["echo"]


async def test_a_cursor_with_flipped_low_bits_is_refused(client: Any) -> None:
    alpha = client("alpha")
    cursor = await next_cursor(alpha)
    flipped = [low_bits_flipped(cursor, part) for part in flippable(cursor)]
    assert flipped  # the signature part (43 characters) always has unused bits
    for token in flipped:
        reply = await alpha.request("tools/list", {"cursor": token})
        assert reply.error["code"] == -32602
        assert "canonical" in reply.error["message"]


# -- legacy session ids ----------------------------------------------------------------------


async def test_a_legacy_session_id_is_bound_to_its_router(base: str) -> None:
    async with LegacyClient(base, "/alpha") as alpha, LegacyClient(base, "/beta") as beta:
        await alpha.open()
        assert (await alpha.request("tools/list")).status == 200
        beta.session_id, beta.version = alpha.session_id, alpha.version
        stolen = await beta.request("tools/list", validate=False)
        assert stolen.status == 404
        # the same words as for a forged or unknown id: nothing tells a genuine id apart
        assert stolen.error["message"] == "Session not found"
        assert alpha.session_id is not None
        alpha.session_id = low_bits_flipped(alpha.session_id, 2)
        flipped = await alpha.request("tools/list", validate=False)
        assert flipped.status == 404  # refused, with the words of any unknown id
        assert flipped.error["message"] == "Session not found"


# -- the Sealer itself ---------------------------------------------------------------------


def test_every_part_of_a_token_must_be_canonical() -> None:
    sealer = Sealer([SECRET], audience="a")
    refused = 0
    for payload in ({"x": 1}, "ab", ["abc", 1], None, "x" * 300):
        token = sealer.seal("p", payload)
        assert sealer.unseal("p", token) == payload
        for part in flippable(token):
            with pytest.raises(SealError) as info:
                sealer.unseal("p", low_bits_flipped(token, part))
            assert info.value.reason == "tampered"
            refused += 1
    assert refused >= 5


def test_a_sealer_opens_only_its_own_audience() -> None:
    token = Sealer([SECRET], audience="one").seal("p", {"v": 1})
    assert Sealer([SECRET], audience="one").unseal("p", token) == {"v": 1}
    for other in (Sealer([SECRET], audience="two"), Sealer([SECRET], audience="")):
        with pytest.raises(SealError) as info:
            other.unseal("p", token)
        assert info.value.reason == "audience"
    plain = Sealer([SECRET]).seal("p", {"aud": "one"})
    with pytest.raises(SealError) as info:
        Sealer([SECRET], audience="one").unseal("p", plain)
    assert info.value.reason == "audience"


def test_an_audience_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="audience"):
        Sealer([SECRET], audience=1)  # type: ignore[arg-type]
