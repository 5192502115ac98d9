"""``catalogs.skills``: the Skills extension (SEP-2640) of a Suite, driven in-process.

``skills/list`` (sorted, paginated with sealed cursors, an entry never split), ``skills/get``
(-32602 on a URI that names no skill), ``resources/directory/read`` (direct children,
subdirectories as ``inode/directory``, -32602 on a file or an unknown URI, pagination), the
files as resources (``SKILL.md`` as ``text/markdown``, binaries as blobs, bytes matching the
manifest), scopes hiding skills, the capability, and runtime add/remove telling resource
listeners. Over real servers and clients: tests/e2e/test_sdk_skills.py.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from genmcp import Skill, SkillRepo, Suite
from genmcp.testing import MCPTestClient

EXTENSION = "io.modelcontextprotocol/skills"


def write_skill(root: Path, relative: str, name: str | None = None, **files: str | bytes) -> Path:
    """A skill directory ``root/relative`` with a SKILL.md and ``files`` (``__`` is ``/``)."""
    directory = root / relative
    directory.mkdir(parents=True, exist_ok=True)
    skill_name = name or relative.rsplit("/", 1)[-1]
    (directory / "SKILL.md").write_text(
        f"---\nname: {skill_name}\ndescription: The {skill_name} skill.\n---\n\n# {skill_name}\n"
    )
    for key, content in files.items():
        path = directory / key.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return directory


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_skill(tmp_path, "alpha", **{"references__GUIDE.md": "# Guide\n", "logo.png": b"\x89PNG"})
    write_skill(tmp_path, "beta")
    write_skill(tmp_path, "team/gamma", **{"templates__a.md": "a", "templates__deep__b.md": "b"})
    return tmp_path


def suite(*skills: Any, **options: Any) -> Suite:
    return Suite(server_name="skills", server_version="1", skills=skills, **options)


async def test_the_extension_and_resources_are_declared(folder: Path) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        capabilities = (await client.discover())["capabilities"]
    assert capabilities["extensions"][EXTENSION] == {"directoryRead": True}
    assert "resources" in capabilities  # skill files are served through resources/read


async def test_without_skills_nothing_is_declared_and_the_methods_are_unknown() -> None:
    async with MCPTestClient(suite()) as client:
        assert "extensions" not in (await client.discover())["capabilities"]
        reply = await client.request("skills/list", {})
    assert reply.response["error"]["code"] == -32601


async def test_skills_list_pages_entries_whole_with_sealed_cursors(folder: Path) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)), page_size=1)) as client:
        pages: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {} if cursor is None else {"cursor": cursor}
            page = (await client.request("skills/list", params)).unwrap()
            pages.append(page)
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        forged = await client.request("skills/list", {"cursor": "not-a-cursor"})
    assert [len(p["skills"]) for p in pages] == [1, 1, 1]
    uris = [p["skills"][0]["uri"] for p in pages]
    assert uris == [
        "skill://alpha/SKILL.md",
        "skill://beta/SKILL.md",
        "skill://team/gamma/SKILL.md",
    ]
    alpha = pages[0]["skills"][0]
    assert alpha["frontmatter"] == {"name": "alpha", "description": "The alpha skill."}
    assert [r["uri"] for r in alpha["resources"]] == [
        "skill://alpha/SKILL.md",
        "skill://alpha/logo.png",
        "skill://alpha/references/GUIDE.md",
    ]
    assert {"ttlMs", "cacheScope", "resultType"} <= set(pages[0])
    assert forged.response["error"]["code"] == -32602


async def test_the_manifest_matches_the_bytes_resources_read_serves(folder: Path) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        entry = (await client.request("skills/get", {"uri": "skill://alpha/SKILL.md"})).unwrap()
        files = {}
        for resource in entry["skill"]["resources"]:
            (part,) = await client.read_resource(resource["uri"])
            files[resource["uri"]] = part
    skill_md = files["skill://alpha/SKILL.md"]
    assert skill_md["mimeType"] == "text/markdown"
    logo = files["skill://alpha/logo.png"]
    assert logo["mimeType"] == "image/png" and "blob" in logo  # binary: base64
    for resource in entry["skill"]["resources"]:
        part = files[resource["uri"]]
        raw = part["text"].encode() if "text" in part else base64.b64decode(part["blob"])
        assert resource["size"] == len(raw)
        assert resource["digest"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert entry["resultType"] == "complete" and "nextCursor" not in entry


@pytest.mark.parametrize(
    "uri",
    ["skill://nope/SKILL.md", "skill://alpha", "skill://alpha/references/GUIDE.md", ""],
)
async def test_skills_get_of_a_uri_that_names_no_skill_is_invalid_params(
    folder: Path, uri: str
) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        reply = await client.request("skills/get", {"uri": uri})
    assert reply.response["error"]["code"] == -32602


async def test_directory_read_lists_direct_children(folder: Path) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        root = (await client.request("resources/directory/read", {"uri": "skill://team/gamma"}))
        templates = await client.request(
            "resources/directory/read", {"uri": "skill://team/gamma/templates"}
        )
    children = {r["uri"]: r for r in root.unwrap()["resources"]}
    assert set(children) == {"skill://team/gamma/SKILL.md", "skill://team/gamma/templates"}
    assert children["skill://team/gamma/templates"]["mimeType"] == "inode/directory"
    assert children["skill://team/gamma/SKILL.md"]["mimeType"] == "text/markdown"
    inner = {r["uri"]: r["name"] for r in templates.unwrap()["resources"]}
    assert inner == {
        "skill://team/gamma/templates/a.md": "a.md",
        "skill://team/gamma/templates/deep": "deep",
    }


@pytest.mark.parametrize(
    "uri", ["skill://alpha/SKILL.md", "skill://alpha/", "skill://nowhere", "skill://team"]
)
async def test_directory_read_of_a_non_directory_is_invalid_params(
    folder: Path, uri: str
) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        reply = await client.request("resources/directory/read", {"uri": uri})
    assert reply.response["error"]["code"] == -32602
    assert "not a directory" in reply.response["error"]["message"]


async def test_directory_read_paginates(tmp_path: Path) -> None:
    write_skill(tmp_path, "many", **{f"f{i}.md": str(i) for i in range(5)})
    async with MCPTestClient(suite((Skill, str(tmp_path / "many")), page_size=2)) as client:
        seen: list[str] = []
        params: dict[str, Any] = {"uri": "skill://many"}
        while True:
            page = (await client.request("resources/directory/read", params)).unwrap()
            seen += [r["uri"] for r in page["resources"]]
            if "nextCursor" not in page:
                break
            params = {"uri": "skill://many", "cursor": page["nextCursor"]}
        other = await client.request(
            "resources/directory/read", {"uri": "skill://many", "cursor": "forged"}
        )
    assert len(seen) == 6 and len(set(seen)) == 6  # five files and SKILL.md, once each
    assert other.response["error"]["code"] == -32602


async def test_skill_md_is_listed_under_its_frontmatter_name(folder: Path) -> None:
    async with MCPTestClient(suite((SkillRepo, str(folder)))) as client:
        listed = {r["uri"]: r for r in await client.list_resources()}
    skill_md = listed["skill://beta/SKILL.md"]
    assert skill_md["name"] == "beta"
    assert skill_md["description"] == "The beta skill."
    assert skill_md["mimeType"] == "text/markdown"


async def test_a_skill_the_caller_lacks_scopes_for_is_hidden(tmp_path: Path) -> None:
    write_skill(tmp_path, "open")
    write_skill(tmp_path, "secret")

    class Secret(Skill, directory=str(tmp_path / "secret"), scopes=["skills:secret"]):
        pass

    served = suite((Skill, str(tmp_path / "open")), Secret)
    assert served.required_scopes("skills/get", "skill://secret/SKILL.md") == ("skills:secret",)
    assert served.required_scopes("resources/directory/read", "skill://secret") == (
        "skills:secret",
    )
    async with MCPTestClient(served, assigns={"effective_scopes": frozenset()}) as client:
        listed = (await client.request("skills/list", {})).unwrap()["skills"]
        hidden = await client.request("skills/get", {"uri": "skill://secret/SKILL.md"})
        resources = [r["uri"] for r in await client.list_resources()]
    assert [s["uri"] for s in listed] == ["skill://open/SKILL.md"]
    assert hidden.response["error"]["code"] == -32602
    assert "skill://secret/SKILL.md" not in resources
    async with MCPTestClient(
        served, assigns={"effective_scopes": frozenset({"skills:secret"})}
    ) as client:
        shown = (await client.request("skills/list", {})).unwrap()["skills"]
    assert len(shown) == 2


async def test_runtime_add_and_remove_tell_resource_listeners(tmp_path: Path) -> None:
    write_skill(tmp_path, "first")
    write_skill(tmp_path, "later")
    served = suite((Skill, str(tmp_path / "first")))
    async with MCPTestClient(served) as client, client.listen(resources=True) as changes:
        group = served.add_skill((Skill, str(tmp_path / "later")))
        assert (await changes.next())["method"] == "notifications/resources/list_changed"
        added = (await client.request("skills/list", {})).unwrap()["skills"]
        assert served.remove_skill(group.name)
        assert (await changes.next())["method"] == "notifications/resources/list_changed"
        after = (await client.request("skills/list", {})).unwrap()["skills"]
        gone = await client.request("resources/read", {"uri": "skill://later/SKILL.md"})
    assert [s["uri"] for s in added] == ["skill://first/SKILL.md", "skill://later/SKILL.md"]
    assert [s["uri"] for s in after] == ["skill://first/SKILL.md"]
    assert gone.response["error"]["code"] == -32602
    assert not served.remove_skill(group.name)


def test_a_skill_uri_served_twice_is_refused(tmp_path: Path) -> None:
    write_skill(tmp_path, "a/dup")
    write_skill(tmp_path, "b/dup")
    with pytest.raises(ValueError, match="already served"):
        suite((Skill, str(tmp_path / "a" / "dup")), (Skill, str(tmp_path / "b" / "dup")))


def test_a_skill_past_the_extension_limits_is_refused(tmp_path: Path) -> None:
    write_skill(tmp_path, "huge", **{f"f{i}.txt": "x" for i in range(512)})  # 513 with SKILL.md
    with pytest.raises(ValueError, match="512"):
        suite((Skill, str(tmp_path / "huge")))


def test_a_provider_that_is_no_skill_is_refused() -> None:
    with pytest.raises(TypeError, match="Skill or SkillRepo"):
        suite(object)


async def test_nested_skills_are_listed_flat_and_counted_in_the_enclosing_one(
    tmp_path: Path,
) -> None:
    write_skill(tmp_path, "outer")
    write_skill(tmp_path, "outer/inner")
    async with MCPTestClient(suite((SkillRepo, str(tmp_path)))) as client:
        listed = (await client.request("skills/list", {})).unwrap()["skills"]
    by_uri = {s["uri"]: s for s in listed}
    assert set(by_uri) == {"skill://outer/SKILL.md", "skill://outer/inner/SKILL.md"}
    outer_files = [r["uri"] for r in by_uri["skill://outer/SKILL.md"]["resources"]]
    assert "skill://outer/inner/SKILL.md" in outer_files  # the manifest is complete
