"""functions/resources.py: ``@resource(uri)`` serves a template or one URI from a function."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from genmcp import (
    Channel,
    ResourceNotFound,
    ResourceRepo,
    Result,
    Suite,
    read_resource_result,
    resource,
    text_contents,
)
from genmcp.protocol.methods import RESOURCES_READ
from genmcp.testing import MCPTestClient, RPCError

ITEMS = {1: "hammer", 2: "saw"}


class Item(BaseModel):
    id: int
    name: str


def ids(value: str, channel: Channel) -> list[str]:
    return [str(i) for i in ITEMS if str(i).startswith(value)]


@resource("shop://items/{item_id}", complete={"item_id": ids}, title="Item")
def item(item_id: int) -> Item | ResourceNotFound:
    """An item of the shop."""
    return Item(id=item_id, name=ITEMS[item_id]) if item_id in ITEMS else ResourceNotFound()


@resource("shop://about", mime_type="text/markdown")
async def about(channel: Channel) -> str:
    """What the shop is."""
    return "# A shop"


@resource("shop://logo")
def logo() -> bytes:
    return b"\x89PNG"


@resource("shop://cached")
def cached() -> Result:
    contents = text_contents("shop://cached", "x")
    return Result(read_resource_result(contents, ttl_ms=5000, cache_scope="public"))


def suite() -> Suite:
    return Suite(server_name="r", server_version="1", resources=[item, about, logo, cached])


def test_the_decorator_makes_an_ordinary_repository_class() -> None:
    assert issubclass(item, ResourceRepo) and item.__name__ == "item"


async def test_templates_and_fixed_uris_are_listed() -> None:
    async with MCPTestClient(suite()) as client:
        templates = await client.list_resource_templates()
        listed = {r["uri"]: r for r in await client.list_resources()}
    assert templates == [{
        "uriTemplate": "shop://items/{item_id}", "name": "item", "title": "Item",
        "description": "An item of the shop.", "mimeType": "application/json",
    }]  # fmt: skip
    assert sorted(listed) == ["shop://about", "shop://cached", "shop://logo"]
    assert listed["shop://about"]["mimeType"] == "text/markdown"
    assert listed["shop://about"]["description"] == "What the shop is."


async def test_plain_returns_become_contents() -> None:
    async with MCPTestClient(suite()) as client:
        [model] = await client.read_resource("shop://items/2")
        [markdown] = await client.read_resource("shop://about")
        [blob] = await client.read_resource("shop://logo")
        [kept] = await client.read_resource("shop://cached")
    assert model == {
        "uri": "shop://items/2", "mimeType": "application/json", "text": '{"id":2,"name":"saw"}'
    }  # fmt: skip
    assert markdown == {"uri": "shop://about", "mimeType": "text/markdown", "text": "# A shop"}
    assert blob == {"uri": "shop://logo", "blob": "iVBORw=="}
    assert kept["text"] == "x"


async def test_a_result_keeps_its_cache_hints() -> None:
    async with MCPTestClient(suite()) as client:
        read = await client.request(RESOURCES_READ, {"uri": "shop://cached"})
    assert (read.unwrap()["ttlMs"], read.unwrap()["cacheScope"]) == (5000, "public")


async def test_a_value_that_does_not_fit_or_a_missing_item_is_not_found() -> None:
    async with MCPTestClient(suite()) as client:
        for uri in ("shop://items/x", "shop://items/9", "shop://about/more"):
            with pytest.raises(RPCError) as caught:
                await client.read_resource(uri)
            assert caught.value.code == -32602, uri
            assert caught.value.data == {"uri": uri}


async def test_template_variables_complete() -> None:
    async with MCPTestClient(suite()) as client:
        assert await client.complete("shop://items/{item_id}", "item_id", "") == ["1", "2"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: resource("x://{a}")(lambda b: b), r"must be the variables of 'x://\{a\}'"),
        (lambda: resource("x://{a}", template="y")(lambda a: a), "give no template="),
        (lambda: resource("x://{a}", complete={"b": ids})(lambda a: a), "does not take"),
    ],
)
def test_refusals_name_the_fix(make: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()  # type: ignore[operator]


def test_a_template_beyond_level_1_is_refused() -> None:
    with pytest.raises(ValueError, match="@resource"):
        resource("x://{+a}")
