"""``catalogs.resources``: the resource catalog of a Suite, driven in-process (MCPTestClient).

The routing rule (static resources first, then the repositories in the order they were
added: the first whose ``parse_uri`` accepts a URI owns it), the list (statics, then each
repository's own pages behind one sealed cursor, one cache hint for all pages), the
templates list, reads (unknown URIs -32602 naming the URI), and template completions. The
same over a real server, against the official schema: tests/test_resource.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from genmcp import (
    Channel,
    ResourceNotFound,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    read_resource_result,
    resource_item,
    text_contents,
)
from genmcp.testing import MCPTestClient


def reader(owner: str) -> Any:
    async def read(self: Any, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        if request.uri.endswith("/missing"):
            return ResourceNotFound()
        return Result(read_resource_result(text_contents(request.uri, f"{owner}:{request.uri}")))

    return read


class First(ResourceRepo, prefix="data://"):
    read = reader("first")


class Deeper(ResourceRepo, prefix="data://deep/"):  # added after First: never asked
    read = reader("deeper")


class Again(ResourceRepo, prefix="data://"):
    read = reader("again")


class Docs(ResourceRepo, template="docs://{name}", name="doc", cache_control=("public", 900)):
    read = reader("docs")

    async def complete(
        self, argument: str, value: str, context: dict[str, str], arg: Any
    ) -> list[str]:
        return [name for name in ("alpha", "alps", "beta") if name.startswith(value)]


class Counted(ResourceRepo, prefix="n://"):
    """``arg`` items, two per page, with its own integer cursor."""

    def list(self, cursor: Any, channel: Channel, arg: int) -> Any:
        start = cursor or 0
        items = [resource_item(f"n://{n}", f"n{n}") for n in range(start, min(start + 2, arg))]
        return items, (start + 2 if start + 2 < arg else None)

    read = reader("counted")


STATIC = StaticResource(uri="data://static", name="static", text="static text")


def suite(*resources: Any) -> Suite:
    return Suite(
        server_name="res", server_version="1", secret_key="r" * 48, resources=list(resources)
    )


async def read(client: MCPTestClient, uri: str) -> Any:
    return await client.request("resources/read", {"uri": uri})


async def test_a_uri_goes_to_the_static_resource_then_the_first_repository_that_takes_it() -> None:
    async with MCPTestClient(suite(First, Deeper, STATIC)) as client:
        static = (await read(client, "data://static")).result["contents"][0]
        assert static["text"] == "static text"
        routed = (await read(client, "data://deep/1")).result["contents"][0]
        assert routed["text"] == "first:data://deep/1"
    async with MCPTestClient(suite(Deeper, First)) as client:
        routed = (await read(client, "data://deep/1")).result["contents"][0]
        assert routed["text"] == "deeper:data://deep/1"


def test_two_repositories_of_one_prefix_are_refused_naming_both() -> None:
    with pytest.raises(ValueError, match="Again: 'data://' is already served by First"):
        suite(First, Again)


async def test_unknown_uris_and_not_found_reads_are_invalid_params_naming_the_uri() -> None:
    async with MCPTestClient(suite(First, Docs)) as client:
        for uri in ("nowhere://x", "data://missing"):
            error = (await read(client, uri)).error
            assert error is not None and error["code"] == -32602, uri
            assert error["data"] == {"uri": uri}


async def test_the_list_pages_statics_then_each_repository_behind_one_cursor() -> None:
    async with MCPTestClient(suite((Counted, 5), STATIC)) as client:
        pages, cursor = [], None
        while True:
            params = {} if cursor is None else {"cursor": cursor}
            result = (await client.request("resources/list", params)).result
            pages.append([item["uri"] for item in result["resources"]])
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert pages[0][0] == "data://static"
        assert [uri for page in pages for uri in page] == [
            "data://static",
            *(f"n://{n}" for n in range(5)),
        ]
        refused = (await client.request("resources/list", {"cursor": "forged"})).error
        assert refused is not None and refused["code"] == -32602


async def test_templates_are_listed_and_their_variables_completed() -> None:
    async with MCPTestClient(suite(Docs, First)) as client:
        listed = (await client.request("resources/templates/list")).result
        assert [t["uriTemplate"] for t in listed["resourceTemplates"]] == ["docs://{name}"]
        completed = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "docs://{name}"},
                "argument": {"name": "name", "value": "al"},
            },
        )
        assert completed.result["completion"]["values"] == ["alpha", "alps"]
        assert (await read(client, "docs://readme")).result["contents"][0]["text"] == (
            "docs:docs://readme"
        )
