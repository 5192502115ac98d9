"""Skills (SEP-2640) end to end: examples/everything_server.py on a real uvicorn server.

The official Python SDK (`mcp==2.3.0`) has no skills API, but its session sends any request
(`session.send_request`) and reads resources: in 2026-07-28 mode and in legacy mode it sees
the extension declared, lists the skills, gets one, reads each file of its manifest and
verifies digest, size and frontmatter as a host must. Raw HTTP then checks each message of
the extension on the wire in both eras (`skills/list`, `skills/get`,
`resources/directory/read`), errors included.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any, Final

import httpx
import pytest
import yaml
from mcp import Client, types
from mcp.shared.exceptions import MCPError as SDKError

from support import examples
from support.client import ModernClient
from support.legacy_http import open_session
from support.server import LiveServers

EXTENSION: Final = "io.modelcontextprotocol/skills"
PDF: Final = "skill://pdf-processing/SKILL.md"
MODES: Final = ("auto", "legacy")

everything = examples.load("everything_server")


class ListSkills(types.Result):
    skills: list[dict[str, Any]]
    nextCursor: str | None = None


class GetSkill(types.Result):
    skill: dict[str, Any]


class ReadDirectory(types.Result):
    resources: list[dict[str, Any]]
    nextCursor: str | None = None


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    live = LiveServers()
    try:
        yield live(everything.app) + "/mcp"
    finally:
        live.stop_all()


def request(method: str, params: dict[str, Any] | None) -> types.Request[Any, str]:
    return types.Request[Any, str](method=method, params=params)


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_lists_a_skill_and_reads_it_verified(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        assert client.server_capabilities.extensions[EXTENSION] == {"directoryRead": True}
        listed = await client.session.send_request(request("skills/list", None), ListSkills)
        entry = next(skill for skill in listed.skills if skill["uri"] == PDF)
        got = await client.session.send_request(request("skills/get", {"uri": PDF}), GetSkill)
        assert got.skill == entry
        read: dict[str, bytes] = {}
        for file in entry["resources"]:
            result = await client.read_resource(file["uri"])
            (part,) = result.contents
            assert isinstance(part, types.TextResourceContents)
            read[file["uri"]] = part.text.encode()
            if file["uri"] == PDF:
                assert part.mime_type == "text/markdown"
    for file in entry["resources"]:
        data = read[file["uri"]]
        assert (len(data), "sha256:" + hashlib.sha256(data).hexdigest()) == (
            file["size"],
            file["digest"],
        )
    block = read[PDF].decode().split("---\n")[1]
    assert yaml.safe_load(block) == entry["frontmatter"]


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_gets_invalid_params_for_an_unknown_skill(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
        with pytest.raises(SDKError) as caught:
            await client.session.send_request(
                request("skills/get", {"uri": "skill://none/SKILL.md"}), GetSkill
            )
        directory = await client.session.send_request(
            request("resources/directory/read", {"uri": "skill://pdf-processing"}), ReadDirectory
        )
    assert caught.value.error.code == -32602
    kinds = {r["name"]: r["mimeType"] for r in directory.resources}
    assert kinds == {
        "SKILL.md": "text/markdown",
        "references": "inode/directory",
        "templates": "inode/directory",
    }


async def test_each_message_on_the_2026_wire(url: str) -> None:
    base = url.removesuffix("/mcp")
    async with ModernClient(base) as client:
        discover = (await client.request("server/discover")).result
        listed = (await client.request("skills/list", {})).result
        got = (await client.request("skills/get", {"uri": PDF})).result
        unknown = (await client.request("skills/get", {"uri": "skill://x/SKILL.md"})).error
        directory = (
            await client.request("resources/directory/read", {"uri": "skill://pdf-processing"})
        ).result
        not_dir = (await client.request("resources/directory/read", {"uri": PDF})).error
    assert discover["capabilities"]["extensions"][EXTENSION] == {"directoryRead": True}
    assert listed["resultType"] == "complete" and {"ttlMs", "cacheScope"} <= set(listed)
    assert [s["uri"] for s in listed["skills"]] == [
        "skill://git-workflow/SKILL.md",
        PDF,
    ]
    assert got["skill"]["uri"] == PDF and "nextCursor" not in got
    assert {"ttlMs", "cacheScope"} <= set(got)
    assert unknown["code"] == -32602 and unknown["data"] == {"uri": "skill://x/SKILL.md"}
    assert {r["uri"] for r in directory["resources"]} >= {"skill://pdf-processing/templates"}
    assert not_dir["code"] == -32602


async def test_each_message_in_a_2025_session(url: str) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        headers = await open_session(http, url, initialized=True)

        async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
            body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
            reply = await http.post(url, json=body, headers=headers)
            assert reply.status_code == 200, reply.text
            answer: dict[str, Any] = reply.json()
            return answer

        listed = await call("skills/list", {})
        got = await call("skills/get", {"uri": PDF})
        unknown = await call("skills/get", {"uri": "skill://x/SKILL.md"})
        directory = await call("resources/directory/read", {"uri": "skill://pdf-processing"})
        not_dir = await call("resources/directory/read", {"uri": "skill://nowhere"})
    assert PDF in [s["uri"] for s in listed["result"]["skills"]]
    assert "resultType" not in listed["result"]  # a 2025 result has no modern envelope keys
    assert got["result"]["skill"]["uri"] == PDF
    assert unknown["error"]["code"] == -32602
    assert len(directory["result"]["resources"]) == 3
    assert not_dir["error"]["code"] == -32602
