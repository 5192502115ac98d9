"""Resources over a real server: repos, static resources, listing, templates, reads, errors.

Every server message is checked against the official 2026-07-28 schema by ModernClient.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from genmcp import (
    Channel,
    InputRequired,
    MCPRouter,
    ResourceNotFound,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    elicit_request,
    mcp_router,
    read_resource_result,
    resource_item,
    resource_template,
    text_contents,
)
from genmcp.testing import MCPTestClient
from support import examples
from support.client import ModernClient

KEY = "r" * 48
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def serve(live_server: Any, **options: Any) -> tuple[str, MCPRouter]:
    router = mcp_router(server_name="res", server_version="1", secret_key=KEY, **options)
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app), router


class TemplateRepo(
    ResourceRepo,
    template="test://template/{id}/data",
    name="template-data",
    description="Data by id.",
    mime_type="application/json",
    cache_control=("public", 60_000),
):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        ident = request.params["id"]
        if ident == "missing":
            return ResourceNotFound()
        data = {"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}
        contents = text_contents(request.uri, json.dumps(data), mime_type="application/json")
        return Result(read_resource_result(contents))

    async def complete(
        self, argument: str, value: str, context: Mapping[str, str], arg: Any
    ) -> Any:
        return [str(n) for n in range(250) if str(n).startswith(value)]


class NumbersRepo(ResourceRepo, prefix="num://"):
    """Lists ``arg`` numbers three per page, with its own integer cursor."""

    def list(self, cursor: Any, channel: Channel, arg: int) -> Any:
        start = cursor or 0
        items = [resource_item(f"num://{n}", f"n{n}") for n in range(start, min(start + 3, arg))]
        return items, (start + 3 if start + 3 < arg else None)

    def read(self, request: ResourceRequest, channel: Channel, arg: int) -> Any:
        return Result(read_resource_result(text_contents(request.uri, request.uri[6:])))


STATICS = [
    StaticResource(
        uri="test://static-text",
        name="static-text",
        description="A text.",
        text="This is the content of the static text resource.",
        mime_type="text/plain",
    ),
    StaticResource(
        uri="test://static-binary",
        name="static-binary",
        description="A PNG.",
        blob=PNG,
        mime_type="image/png",
        cache_control=("public", 3_600_000),
    ),
]


# -- reads ------------------------------------------------------------------------------


async def test_static_text_and_blob_resources_are_read_with_cache_hints(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=STATICS)
    client: ModernClient = modern_client(base)
    text = await client.request("resources/read", {"uri": "test://static-text"})
    assert text.content_type == "application/json"
    assert text.result["contents"] == [
        {
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }
    ]
    assert (text.result["cacheScope"], text.result["ttlMs"]) == ("private", 0)
    assert text.result["resultType"] == "complete"
    blob = await client.request("resources/read", {"uri": "test://static-binary"})
    [contents] = blob.result["contents"]
    assert base64.b64decode(contents["blob"]) == PNG and contents["mimeType"] == "image/png"
    assert (blob.result["cacheScope"], blob.result["ttlMs"]) == ("public", 3_600_000)


async def test_a_template_repo_reads_by_variable_with_its_cache_control(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=[TemplateRepo])
    client: ModernClient = modern_client(base)
    reply = await client.request("resources/read", {"uri": "test://template/123/data"})
    [contents] = reply.result["contents"]
    assert json.loads(contents["text"]) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }
    assert (reply.result["cacheScope"], reply.result["ttlMs"]) == ("public", 60_000)
    decoded = await client.request("resources/read", {"uri": "test://template/a%20b/data"})
    assert json.loads(decoded.result["contents"][0]["text"])["id"] == "a b"


async def test_an_unknown_resource_is_invalid_params_with_its_uri_never_empty_contents(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=[TemplateRepo, *STATICS])
    client: ModernClient = modern_client(base)
    for uri in ["test://nowhere", "test://template/missing/data", "test://template/1/2/data"]:
        reply = await client.request("resources/read", {"uri": uri})
        assert reply.status == 200
        assert reply.error["code"] == -32602
        assert reply.error["data"] == {"uri": uri}
        assert uri in reply.error["message"]


@pytest.mark.parametrize("params", [{}, {"uri": 7}, {"uri": None}])
async def test_a_read_without_a_string_uri_is_invalid_params(params: dict[str, Any]) -> None:
    suite = Suite(server_name="s", server_version="1", secret_key=KEY, resources=STATICS)
    reply = await ask(suite, "resources/read", params)
    assert reply["error"]["code"] == -32602 and "uri" not in (reply["error"].get("data") or {})


class AskFirst(ResourceRepo, prefix="secret://"):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        answer = (request.input_responses or {}).get("ok")
        if answer is None:
            ask = elicit_request("Reveal it?", {"type": "object", "properties": {}})
            return InputRequired({"ok": ask}, state={"uri": request.uri})
        text = f"{request.request_state['uri']}: {answer['action']}"
        return Result(read_resource_result(text_contents(request.uri, text)))


async def test_a_read_can_ask_for_input_first_with_state_bound_to_its_uri(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=[AskFirst])
    client: ModernClient = modern_client(base)
    caps = {"elicitation": {}}
    first = await client.request("resources/read", {"uri": "secret://a"}, capabilities=caps)
    assert first.result["resultType"] == "input_required"
    assert "ttlMs" not in first.result
    token = first.result["requestState"]
    retry = {"uri": "secret://a", "inputResponses": {"ok": {"action": "accept"}}}
    second = await client.request(
        "resources/read", {**retry, "requestState": token}, capabilities=caps
    )
    assert second.result["contents"][0]["text"] == "secret://a: accept"
    moved = await client.request(
        "resources/read", {**retry, "uri": "secret://b", "requestState": token}, capabilities=caps
    )
    assert moved.error["code"] == -32602 and moved.error["data"] == {"reason": "rebound"}
    undeclared = await client.request("resources/read", {"uri": "secret://a"})
    assert undeclared.status == 400 and undeclared.error["code"] == -32021


class Broken(ResourceRepo, prefix="broken://"):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
        if request.uri == "broken://empty":
            return Result({"contents": []})
        if request.uri == "broken://raise":
            raise RuntimeError("disk on fire")
        return 42  # not an outcome (a str would be text: plain returns, issue 28)


async def test_a_broken_read_is_logged_and_answered_internal_error(
    live_server: Any, modern_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    base, router = serve(live_server, resources=[Broken])
    client: ModernClient = modern_client(base)
    for uri in ["broken://empty", "broken://raise", "broken://other"]:
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="genmcp"):
            reply = await client.request("resources/read", {"uri": uri})
        assert reply.error["code"] == -32603
        assert "resources/read failed" in caplog.text
    assert router.suite.live_workers == 0


# -- listings ---------------------------------------------------------------------------


async def collect(client: ModernClient, method: str, key: str) -> tuple[list[Any], list[Any]]:
    """Every item of a paginated list, and every page."""
    items: list[Any] = []
    pages: list[Any] = []
    cursor = None
    while True:
        reply = await client.request(method, {} if cursor is None else {"cursor": cursor})
        pages.append(reply.result)
        items += reply.result[key]
        cursor = reply.result.get("nextCursor")
        if cursor is None:
            return items, pages
        # resources/list cursors hold a repository's own cursor: encrypted (v2)
        assert cursor.startswith("v2." if method == "resources/list" else "v1.")


async def test_resources_list_pages_through_statics_then_each_repo_with_sealed_cursors(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(
        live_server,
        resources=[*STATICS, (NumbersRepo, 7), TemplateRepo],
        page_size=1,
    )
    client: ModernClient = modern_client(base)
    items, pages = await collect(client, "resources/list", "resources")
    assert [item["uri"] for item in items] == [
        "test://static-binary",
        "test://static-text",
        *(f"num://{n}" for n in range(7)),
    ]
    assert items[0]["size"] == len(PNG)
    assert len(pages) == 2 + 3  # statics one per page, numbers three per page
    assert {(page["cacheScope"], page["ttlMs"]) for page in pages} == {("private", 0)}
    forged_cursor = "v2.abcdefghijklmnopqrstuvwxyz0123456789abcdefghijkl"
    forged = await client.request("resources/list", {"cursor": forged_cursor})
    assert forged.error["code"] == -32602
    again = await client.request("resources/list", {"cursor": pages[0]["nextCursor"]})
    assert again.result["resources"] == pages[1]["resources"]  # a cursor can be replayed


async def test_a_cursor_of_a_removed_repo_must_start_again(
    live_server: Any, modern_client: Any
) -> None:
    base, router = serve(live_server, resources=[(NumbersRepo, 7)])
    client: ModernClient = modern_client(base)
    first = await client.request("resources/list")
    assert router.suite.remove_resource("num://")
    router.suite.add_resource(StaticResource(uri="x://y", name="y", text="y"))
    stale = await client.request("resources/list", {"cursor": first.result["nextCursor"]})
    assert stale.error["code"] == -32602 and "start again" in stale.error["message"]


async def test_a_repository_added_later_shows_in_a_filtered_templates_list() -> None:
    class Secret(ResourceRepo, template="secret://{id}", name="secret", scopes=["s:read"]):
        async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
            return ResourceNotFound()

    class Later(ResourceRepo, template="later://{id}", name="later"):
        async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
            return ResourceNotFound()

    suite = Suite(server_name="r", server_version="1", secret_key=KEY, resources=[Secret])
    suite.add_resource(TemplateRepo)
    scoped = {"effective_scopes": frozenset({"mcp:tools"})}  # Secret is hidden from it
    async with MCPTestClient(suite, assigns=scoped) as client:
        listed = await client.list_resource_templates()
        assert [t["name"] for t in listed] == ["template-data"]
        suite.add_resource(Later)  # the pages of this hidden set are built again
        listed = await client.list_resource_templates()
        assert [t["name"] for t in listed] == ["template-data", "later"]


async def test_templates_list_describes_every_template_paginated(
    live_server: Any, modern_client: Any
) -> None:
    class Other(ResourceRepo, template="other://{a}/{b}", name="other", title="Other"):
        async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Any:
            return ResourceNotFound()

    base, _ = serve(live_server, resources=[TemplateRepo, Other, *STATICS], page_size=1)
    client: ModernClient = modern_client(base)
    items, pages = await collect(client, "resources/templates/list", "resourceTemplates")
    assert items == [
        {
            "uriTemplate": "test://template/{id}/data",
            "name": "template-data",
            "description": "Data by id.",
            "mimeType": "application/json",
        },
        {"uriTemplate": "other://{a}/{b}", "name": "other", "title": "Other"},
    ]
    assert len(pages) == 2


async def test_resource_methods_are_not_found_without_resources(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server)
    client: ModernClient = modern_client(base)
    for method, params in [
        ("resources/list", {}),
        ("resources/templates/list", {}),
        ("resources/read", {"uri": "test://static-text"}),
    ]:
        reply = await client.request(method, params)
        assert reply.status == 404 and reply.error["code"] == -32601
    discover = await client.request("server/discover")
    assert "resources" not in discover.result["capabilities"]


async def test_discover_advertises_resources_with_subscribe_and_list_changed(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=STATICS)
    discover = await modern_client(base).request("server/discover")
    capabilities = discover.result["capabilities"]
    assert capabilities["resources"] == {"subscribe": True, "listChanged": True}
    assert "completions" not in capabilities and "prompts" not in capabilities


# -- completion of template variables -----------------------------------------------------


async def test_template_variables_complete_capped_at_100_with_total(
    live_server: Any, modern_client: Any
) -> None:
    base, _ = serve(live_server, resources=[TemplateRepo])
    client: ModernClient = modern_client(base)
    ref = {"type": "ref/resource", "uri": "test://template/{id}/data"}
    every = await client.request(
        "completion/complete", {"ref": ref, "argument": {"name": "id", "value": ""}}
    )
    completion = every.result["completion"]
    assert len(completion["values"]) == 100 and completion["values"][:3] == ["0", "1", "2"]
    assert completion["total"] == 250 and completion["hasMore"] is True
    some = await client.request(
        "completion/complete", {"ref": ref, "argument": {"name": "id", "value": "24"}}
    )
    assert some.result["completion"] == {
        "values": ["24", "240", "241", "242", "243", "244", "245", "246", "247", "248", "249"]
    }
    wrong = await client.request(
        "completion/complete", {"ref": ref, "argument": {"name": "nope", "value": ""}}
    )
    assert wrong.error["code"] == -32602 and "id" in wrong.error["message"]
    unknown = await client.request(
        "completion/complete",
        {"ref": {"type": "ref/resource", "uri": "x://{y}"}, "argument": {"name": "y", "value": ""}},
    )
    assert unknown.error["code"] == -32602


class TwoTemplates(ResourceRepo, prefix="two://"):
    """Describes two templates; each completes its own variable."""

    def templates(self, arg: Any) -> list[dict[str, Any]]:
        return [resource_template("two://a/{x}", "a"), resource_template("two://b/{x}", "b")]

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> str:
        return request.uri

    async def complete_template(
        self, template: str, argument: str, value: str, context: Any, channel: Channel, arg: Any
    ) -> list[str]:
        return [f"{template[6]}{value}"]


async def test_a_repository_with_several_templates_completes_each_by_its_template() -> None:
    suite = Suite(server_name="t", server_version="1", resources=[TwoTemplates])
    async with MCPTestClient(suite) as client:
        a = await client.complete("two://a/{x}", "x", "1")
        b = await client.complete("two://b/{x}", "x", "2")
    assert (a, b) == (["a1"], ["b2"])
    assert "completions" in suite.capabilities


# -- the file-backed example ---------------------------------------------------------------

resources_prompts = examples.load("resources_prompts")


def serve_docs(live_server: Any, root: Path) -> str:
    router = mcp_router(
        server_name="docs",
        server_version="1",
        secret_key=KEY,
        resources=[(resources_prompts.DocsRepo, root.resolve())],
        page_size=2,
    )
    app = FastAPI()
    app.include_router(router, prefix="/mcp")
    return live_server(app)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "guide").mkdir(parents=True)
    (root / "readme.md").write_text("# Hello\n")
    (root / "guide" / "intro.txt").write_text("intro")
    (root / "logo.png").write_bytes(PNG)
    (root / ".hidden").write_text("no")
    (tmp_path / "secret.txt").write_text("top secret")
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    return root


async def test_the_docs_example_lists_and_reads_files_as_text_or_blob(
    live_server: Any, modern_client: Any, docs: Path
) -> None:
    client: ModernClient = modern_client(serve_docs(live_server, docs))
    items, pages = await collect(client, "resources/list", "resources")
    assert [item["uri"] for item in items] == [
        "docs://guide/intro.txt",
        "docs://logo.png",
        "docs://readme.md",
    ]
    assert {(page["cacheScope"], page["ttlMs"]) for page in pages} == {("public", 30_000)}
    text = await client.request("resources/read", {"uri": "docs://guide/intro.txt"})
    assert text.result["contents"] == [
        {"uri": "docs://guide/intro.txt", "mimeType": "text/plain", "text": "intro"}
    ]
    blob = await client.request("resources/read", {"uri": "docs://logo.png"})
    assert base64.b64decode(blob.result["contents"][0]["blob"]) == PNG


async def test_the_docs_example_refuses_paths_leaving_its_directory(
    live_server: Any, modern_client: Any, docs: Path
) -> None:
    client: ModernClient = modern_client(serve_docs(live_server, docs))
    refused = [
        "../secret.txt",
        "guide/../../secret.txt",
        "/etc/passwd",
        "escape.txt",  # a symlink to a file outside
        ".hidden",
        "guide",
        "guide\\..\\..\\secret.txt",
        "nothing.txt",
        "",
    ]
    for path in refused:
        reply = await client.request("resources/read", {"uri": "docs://" + path})
        assert reply.error["code"] == -32602, path
        assert reply.error["data"] == {"uri": "docs://" + path}


async def test_the_example_app_serves_its_own_files(live_server: Any, modern_client: Any) -> None:
    client: ModernClient = modern_client(live_server(resources_prompts.app))
    reply = await client.request("resources/read", {"uri": "docs://resources_prompts.py"})
    assert "DocsRepo" in reply.result["contents"][0]["text"]
    about = await client.request("resources/read", {"uri": "about://server"})
    assert about.result["cacheScope"] == "public"
    ref = {"type": "ref/resource", "uri": "docs://{path}"}
    completion = await client.request(
        "completion/complete", {"ref": ref, "argument": {"name": "path", "value": "resources_"}}
    )
    assert completion.result["completion"]["values"] == ["resources_prompts.py"]


# -- building repos, in-process ------------------------------------------------------------


async def ask(suite: Suite, method: str, params: dict[str, Any]) -> dict[str, Any]:
    from genmcp.protocol.jsonrpc import Request
    from support.answers import answer_of

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    response, _status = await answer_of(suite, Request(1, method, {**params, "_meta": meta}))
    return response


def test_misconfigured_repos_fail_when_the_suite_is_built() -> None:
    def build(*resources: Any) -> Suite:
        return Suite(server_name="s", server_version="1", secret_key=KEY, resources=resources)

    class Both(ResourceRepo, prefix="a://", template="a://{x}", name="a"):
        pass

    class Neither(ResourceRepo):
        pass

    class Level2(ResourceRepo, template="a://{+x}", name="a"):
        pass

    class Nameless(ResourceRepo, template="a://{x}"):
        pass

    for repo, match in [
        (Both, "exactly one of prefix"),
        (Neither, "exactly one of prefix"),
        (Level2, "level-1"),
        (Nameless, "name"),
        (int, "not a ResourceRepo"),
    ]:
        with pytest.raises((ValueError, TypeError), match=match):
            build(repo)
    with pytest.raises(ValueError, match="already served"):
        build(TemplateRepo, TemplateRepo)
    with pytest.raises(ValueError, match="already served"):
        build(STATICS[0], STATICS[0])
    with pytest.raises(TypeError, match="unknown ResourceRepo option"):
        type("Bad", (ResourceRepo,), {}, prefixx="a://")


def test_static_resources_need_one_of_text_and_blob() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        StaticResource(uri="a://b", name="b")
    with pytest.raises(ValueError, match="exactly one"):
        StaticResource(uri="a://b", name="b", text="t", blob=b"b")
    with pytest.raises(ValueError, match="base64"):
        StaticResource(uri="a://b", name="b", blob="not base64!")
