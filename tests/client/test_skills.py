"""``genmcp.client.Skills`` (SEP-2640 from the client's side) against real servers.

genmcp's own server (a ``SkillRepo`` folder) in both eras: listing reads no file (no
prefetch), ``load`` reads ``SKILL.md`` once and ``read`` a listed file once, verified; an
unlisted URI is refused with no request sent. Behind a tampering proxy (an ASGI layer that
rewrites answers on the wire): a ``SKILL.md`` of the right length but other bytes (digest),
with bytes added (size), or a listing whose frontmatter is not the file's (frontmatter) is
refused, and the skill's other file is never read after it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from genmcp import SkillRepo, Suite, mcp_router
from genmcp.client import Client, Skills, SkillVerificationError
from support.server import LiveServers

SKILL_MD: Final = (
    "---\nname: pdf-processing\ndescription: Fill PDF forms.\nlicense: MIT\nbeta: yes\n---\n"
    "# PDF processing\n\nSee `references/FORMS.md`.\n"
)
SKILL: Final = "skill://pdf-processing/SKILL.md"
FORMS: Final = "skill://pdf-processing/references/FORMS.md"
ERAS: Final = [None, "2025-11-25"]


def folder() -> str:
    root = Path(tempfile.mkdtemp())
    (root / "pdf-processing" / "references").mkdir(parents=True)
    (root / "pdf-processing" / "SKILL.md").write_text(SKILL_MD)
    (root / "pdf-processing" / "references" / "FORMS.md").write_text("Forms.\n")
    return str(root)


class Wire:
    """Counts each JSON-RPC method posted; rewrites answers with ``tamper(method, message)``."""

    def __init__(self, app: ASGIApp, tamper: Callable[[str, dict[str, Any]], None] | None = None):
        self.app, self.tamper = app, tamper
        self.methods: list[str] = []
        self.reads: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body) if body else {}
        method = request.get("method", "")
        self.methods.append(method)
        if method == "resources/read":
            self.reads.append(request["params"]["uri"])
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        if self.tamper is None:
            await self.app(scope, replay, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    await self._release(method, start, b"".join(chunks), send)

        await self.app(scope, replay, hold)

    async def _release(self, method: str, start: dict[str, Any], body: bytes, send: Send) -> None:
        headers = [(k, v) for k, v in start["headers"] if k != b"content-length"]
        if body.startswith(b"{") and self.tamper is not None:
            message = json.loads(body)
            self.tamper(method, message)
            body = json.dumps(message).encode()
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def serve(live_server: LiveServers, tamper: Callable[[str, dict[str, Any]], None] | None = None
          ) -> tuple[str, Wire]:  # fmt: skip
    suite = Suite(server_name="skills", server_version="1", skills=[(SkillRepo, folder())])
    app = FastAPI()
    app.include_router(mcp_router(suite=suite), prefix="/mcp")
    wire = Wire(app, tamper)
    return live_server(wire) + "/mcp", wire


@pytest.mark.parametrize("era", ERAS, ids=["2026-07-28", "2025-11-25"])
async def test_list_reads_nothing_load_and_read_verify_unlisted_is_never_sent(
    live_server: LiveServers, era: str | None
) -> None:
    url, wire = serve(live_server)
    async with Client(url, protocol=era) as client:
        skills = Skills(client)
        [entry] = await skills.list()
        assert wire.reads == []  # no prefetch
        text = await skills.load(entry)
        forms = await skills.read(entry, FORMS)
        with pytest.raises(SkillVerificationError) as unlisted:
            await skills.read(entry, "skill://pdf-processing/scripts/extract.py")
    assert entry["uri"] == SKILL and entry["frontmatter"]["beta"] == "yes"
    assert text == SKILL_MD and forms == b"Forms.\n"
    assert unlisted.value.reason == "unlisted"
    assert wire.reads == [SKILL, FORMS]  # the unlisted file never went on the wire
    assert wire.methods.count("skills/list") == 1


def body_of(message: dict[str, Any]) -> dict[str, Any] | None:
    contents = (message.get("result") or {}).get("contents") or []
    return contents[0] if contents and contents[0].get("uri") == SKILL else None


def same_length(method: str, message: dict[str, Any]) -> None:
    if method == "resources/read" and (content := body_of(message)) is not None:
        content["text"] = content["text"].replace("Fill PDF forms.", "Steal secrets!!")


def longer(method: str, message: dict[str, Any]) -> None:
    if method == "resources/read" and (content := body_of(message)) is not None:
        content["text"] += "extra bytes the listing did not count\n"


def other_frontmatter(method: str, message: dict[str, Any]) -> None:
    if method == "skills/list":
        for skill in message["result"]["skills"]:
            skill["frontmatter"]["description"] = "Something else."


@pytest.mark.parametrize(("tamper", "reason"), [
    (same_length, "digest"), (longer, "size"), (other_frontmatter, "frontmatter"),
])  # fmt: skip
async def test_tampered_content_is_refused_and_nothing_after_it_is_read(
    live_server: LiveServers, tamper: Callable[[str, dict[str, Any]], None], reason: str
) -> None:
    url, wire = serve(live_server, tamper)
    async with Client(url) as client:
        skills = Skills(client)
        [entry] = await skills.list()
        with pytest.raises(SkillVerificationError) as refused:
            await skills.load(entry)
            await skills.read(entry, FORMS)  # a client that accepted would go on to this
    assert refused.value.reason == reason and refused.value.uri == SKILL
    assert wire.reads == [SKILL]
