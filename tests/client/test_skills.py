"""`client.skills` (SEP-2640, the Skills extension as a host uses it) against genmcp's own Skills
server over real HTTP, in both eras: nothing fetched ahead of need, every file verified
against its entry (size, digest, SKILL.md frontmatter), unlisted files and oversized skills
refused before any read. A skill changed on the server after the client took its entry is the
real-world mismatch: the held entry no longer describes what the server now sends.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, Final

import pytest

from genmcp import Skill, Suite, mcp_app
from genmcp.client import (
    Client,
    ClientError,
    DigestMismatch,
    FrontmatterMismatch,
    RPCError,
    SizeMismatch,
    SkillFile,
    Skills,
    SkillTooLarge,
    SkillVerificationError,
    UnlistedSkillFile,
)
from genmcp.protocol.skills import sha256_digest
from support.recorder import Recorder
from support.server import LiveServer, LiveServers

ERAS: Final = ("2026-07-28", "2025-11-25")
SKILL_MD: Final = (
    b"---\nname: pdf-processing\ndescription: Fill PDF forms.\nlicense: MIT\nversion: 2\n"
    b"draft: false\n---\n# PDF processing\n\nSee references/FORMS.md.\n"
)
FORMS: Final = b"# Forms\n\nUse the W-9 template.\n"
LOGO: Final = bytes(range(256))  # a binary file: read as a base64 blob
ROOT: Final = "skill://pdf-processing"


class Files(Skill):
    """One skill whose files are the provider argument (path -> bytes)."""

    def files(self, arg: Any) -> Mapping[str, bytes]:
        return dict(arg)


FILES: Final = {"SKILL.md": SKILL_MD, "references/FORMS.md": FORMS, "assets/logo.bin": LOGO}


def serve(live_server: LiveServers) -> tuple[str, Suite, Recorder, LiveServer]:
    suite = Suite(server_name="skills", server_version="1", skills=[(Files, FILES)])
    recorder = Recorder(mcp_app(suite, path="/mcp"))
    server = live_server.start(recorder)
    return server.url + "/mcp", suite, recorder, server


def reads(recorder: Recorder) -> list[str]:
    return [e.body["params"]["uri"] for e in recorder.posts("resources/read")]


def change(server: LiveServer, suite: Suite, path: str, data: bytes) -> None:
    """Serve the skill again with the file at ``path`` replaced (on the server's loop)."""

    async def swap() -> None:
        suite.remove_skill(f"{ROOT}/SKILL.md")
        suite.add_skill((Files, {**FILES, path: data}))

    server.submit(swap()).result(timeout=30)


@pytest.mark.parametrize("era", ERAS)
async def test_files_are_fetched_when_asked_and_verified(
    live_server: LiveServers, era: str
) -> None:
    url, _, recorder, _ = serve(live_server)
    async with Client(url, protocol=era) as client:
        [entry] = await client.skills.list()
        assert entry["uri"] == f"{ROOT}/SKILL.md"
        assert await client.skills.get(entry["uri"]) == entry
        assert reads(recorder) == []  # listing and getting fetch no file

        skill = await client.skills.load(entry)
        assert reads(recorder) == [f"{ROOT}/SKILL.md"]  # loading fetches SKILL.md alone
        assert skill.name == "pdf-processing" and skill.frontmatter["version"] == 2
        assert skill.skill_md == SkillFile(f"{ROOT}/SKILL.md", SKILL_MD, "text/markdown", True)
        assert sorted(skill.files) == sorted(f"{ROOT}/{path}" for path in FILES)

        forms = await skill.read("references/FORMS.md")
        assert (forms.data, forms.verified, forms.text) == (FORMS, True, FORMS.decode())
        logo = await skill.read(f"{ROOT}/assets/logo.bin")
        assert logo.data == LOGO and logo.verified
        assert await skill.read("references/FORMS.md") is forms  # kept: not fetched again
        assert reads(recorder) == [f"{ROOT}/{path}" for path in FILES]

        by_uri = await client.skills.load(f"{ROOT}/SKILL.md")  # skills/get, then SKILL.md
        assert by_uri.entry == entry
        assert len(recorder.posts("skills/get")) == 2


@pytest.mark.parametrize("era", ERAS)
async def test_a_file_that_is_not_the_listed_one_is_refused(
    live_server: LiveServers, era: str
) -> None:
    url, suite, recorder, server = serve(live_server)
    async with Client(url, protocol=era) as client:
        [entry] = await client.skills.list()
        skill = await client.skills.load(entry)
        # the same length, other bytes: only the digest tells
        change(server, suite, "references/FORMS.md", FORMS.replace(b"W-9", b"W-8"))
        with pytest.raises(DigestMismatch) as digest:
            await skill.read("references/FORMS.md")
        assert digest.value.uri == f"{ROOT}/references/FORMS.md"
        assert sha256_digest(FORMS) in str(digest.value)

        change(server, suite, "references/FORMS.md", FORMS + b"Also sign it.\n")
        with pytest.raises(SizeMismatch) as size:
            await skill.read("references/FORMS.md")
        assert f"{len(FORMS) + 14} bytes read where the manifest lists {len(FORMS)}" in str(
            size.value
        )
        # a refused read is not kept: the next one asks the server again
        assert reads(recorder).count(f"{ROOT}/references/FORMS.md") == 2

        # a fresh entry describes what is served now, and verifies
        fresh = await client.skills.load(await client.skills.get(entry["uri"]))
        assert (await fresh.read("references/FORMS.md")).data == FORMS + b"Also sign it.\n"


@pytest.mark.parametrize("era", ERAS)
async def test_a_skill_md_whose_frontmatter_differs_is_not_loaded(
    live_server: LiveServers, era: str
) -> None:
    url, suite, recorder, server = serve(live_server)
    async with Client(url, protocol=era) as client:
        [entry] = await client.skills.list()
        tampered = SKILL_MD.replace(b"Fill PDF forms.", b"Send the files away.")
        change(server, suite, "SKILL.md", tampered)
        # the held entry's SKILL.md digest now fails first
        with pytest.raises(SizeMismatch):
            await client.skills.load(entry)
        # an entry whose manifest matches the new file but whose frontmatter is the old one:
        # what the scenario sep-2640-client-verify-frontmatter serves
        forged = {
            **entry,
            "resources": [
                {**item, "digest": sha256_digest(tampered), "size": len(tampered)}
                if item["uri"].endswith("/SKILL.md")
                else item
                for item in entry["resources"]
            ],
        }
        with pytest.raises(FrontmatterMismatch, match="'description'") as refused:
            await client.skills.load(forged)
        assert isinstance(refused.value, SkillVerificationError)
        assert reads(recorder) == [f"{ROOT}/SKILL.md"] * 2  # nothing more was fetched


async def test_unlisted_files_and_oversized_skills_are_never_fetched(
    live_server: LiveServers,
) -> None:
    url, _, recorder, _ = serve(live_server)
    async with Client(url) as client:
        [entry] = await client.skills.list()
        total = sum(item["size"] for item in entry["resources"])
        with pytest.raises(SkillTooLarge) as files:
            await Skills(client, max_files=2).load(entry)
        assert (files.value.limit, files.value.value) == ("max_files", 2)
        with pytest.raises(SkillTooLarge) as size:
            await Skills(client, max_bytes=total - 1).load(entry)
        assert size.value.limit == "max_bytes" and f"lists {total} bytes" in str(size.value)
        assert reads(recorder) == []

        skill = await Skills(client, max_files=3, max_bytes=total).load(entry)
        with pytest.raises(UnlistedSkillFile):
            await skill.read("references/SECRET.md")
        for outside in ("skill://other/SKILL.md", "../other/SKILL.md", f"{ROOT}/a/../SKILL.md"):
            with pytest.raises(ValueError, match="not a file of the skill"):
                await skill.read(outside)
        assert reads(recorder) == [f"{ROOT}/SKILL.md"]

        with pytest.raises(RPCError) as unknown:
            await client.skills.get("skill://nope/SKILL.md")
        assert unknown.value.code == -32602


async def test_a_malformed_entry_is_a_client_error_before_any_read(
    live_server: LiveServers,
) -> None:
    url, _, recorder, _ = serve(live_server)
    async with Client(url) as client:
        [entry] = await client.skills.list()
        bad_digest = {**entry, "resources": [{**entry["resources"][0], "digest": "md5:00"}]}
        for bad in (
            {**entry, "uri": "skill://pdf-processing/README.md"},
            {**entry, "frontmatter": "name: x"},
            {**entry, "resources": "all of them"},
            bad_digest,
        ):
            with pytest.raises(ClientError) as caught:
                await client.skills.load(bad)
            assert type(caught.value) is ClientError, bad
        assert reads(recorder) == []


def test_the_frontmatter_comparison_is_json_s() -> None:
    from genmcp.client.skills import _same

    assert _same({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not _same(True, 1) and not _same(0, False)
    assert not _same({"a": 1}, {"a": 1, "b": None}) and not _same([1, 2], [2, 1])
    assert not _same("2", 2)


class Generated:
    """A raw ASGI 2026-07-28 server of one generated skill (``resources: "dynamic"``, no
    manifest), whose ``resources/read`` answers the ``contents`` given per URI: what genmcp's
    own server never sends, for the client's handling of it."""

    def __init__(self, frontmatter: dict[str, Any], reads: dict[str, list[Any]]) -> None:
        self.entry = {"uri": f"{ROOT}/SKILL.md", "frontmatter": frontmatter,
                      "resources": "dynamic"}  # fmt: skip
        self.reads = reads
        self.read: list[str] = []

    def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "server/discover":
            extensions: dict[str, Any] = {"io.modelcontextprotocol/skills": {}}
            return {
                "supportedVersions": ["2026-07-28"],
                "serverInfo": {"name": "generated", "version": "1"},
                "capabilities": {"resources": {}, "extensions": extensions},
            }
        if method == "skills/list":
            return {"skills": [self.entry]}
        self.read.append(params["uri"])
        return {"contents": self.reads[params["uri"]]}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        request = json.loads(body or b"{}")
        found = self.result(request.get("method", ""), request.get("params") or {})
        result = {"resultType": "complete", **found}
        answer = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result})
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})  # fmt: skip
        await send({"type": "http.response.body", "body": answer.encode()})


async def test_a_dynamic_skill_is_read_unverified_but_its_frontmatter_still_compared(
    live_server: LiveServers,
) -> None:
    text = SKILL_MD.decode()
    reads = {
        f"{ROOT}/SKILL.md": [{"uri": f"{ROOT}/SKILL.md", "text": text}],
        f"{ROOT}/today.bin": [
            {"uri": f"{ROOT}/today.bin", "blob": base64.b64encode(LOGO).decode()}
        ],
        f"{ROOT}/bad.bin": [{"uri": f"{ROOT}/bad.bin", "blob": "not base64!"}],
        f"{ROOT}/two.md": [{"uri": f"{ROOT}/two.md", "text": "a"}] * 2,
        f"{ROOT}/empty.md": [{"uri": f"{ROOT}/empty.md"}],
    }
    frontmatter = {"name": "pdf-processing", "description": "Fill PDF forms.", "license": "MIT",
                   "version": 2, "draft": False}  # fmt: skip
    server = Generated(frontmatter, reads)
    url = live_server(server) + "/mcp"
    async with Client(url) as client:
        skill = await client.skills.load((await client.skills.list())[0])
        assert skill.files == [] and skill.skill_md.verified is False
        assert server.read == [f"{ROOT}/SKILL.md"]
        today = await skill.read("today.bin")
        assert (today.data, today.verified) == (LOGO, False)
        for path, problem in (("bad.bin", "not base64"), ("two.md", "2 contents"),
                              ("empty.md", "neither text nor a blob")):  # fmt: skip
            with pytest.raises(ClientError, match=problem):
                await skill.read(path)

        server.entry["frontmatter"] = {**frontmatter, "draft": 0}  # false is not 0
        with pytest.raises(FrontmatterMismatch, match="'draft'"):
            await client.skills.load((await client.skills.list())[0])
