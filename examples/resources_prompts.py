"""Resources, prompts, completions and change notifications: http://127.0.0.1:8000/mcp.

Serve it with ``.venv/bin/python -m uvicorn --app-dir examples resources_prompts:app``.

- ``DocsRepo`` serves the files under a directory (``DOCS_DIR``, default: this examples
  directory) as ``docs://<relative path>``: listed page by page, read as text or as a blob
  by MIME type, and completed by path. Paths that leave the directory (``..``, absolute
  paths, symlinks pointing out, hidden files) are refused as "resource not found".
- ``MotdRepo`` serves one in-memory text at ``motd://today``; the ``set_motd`` tool changes
  it and calls ``suite.resource_updated(...)``, so a client listening with
  ``resourceSubscriptions: ["motd://today"]`` hears about it.
- ``StaticResource`` serves a fixed text without a class.
- The ``summarize_file`` prompt embeds a file and completes both of its arguments.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from genmcp import (
    Channel,
    Error,
    Prompt,
    PromptRequest,
    ResourceNotFound,
    ResourceRepo,
    ResourceRequest,
    Result,
    StaticResource,
    Suite,
    Tool,
    ToolRequest,
    blob_contents,
    call_tool_result,
    embedded_resource,
    get_prompt_result,
    mcp_router,
    read_resource_result,
    resource_item,
    resource_template,
    text_contents,
    user_message,
)

PREFIX = "docs://"
PAGE = 50
MAX_BYTES = 1024 * 1024
STYLES = ("brief", "detailed", "bullet points", "for a five-year-old")


def safe_relative(relative: str) -> bool:
    """True for a plain relative path: no absolute path, ``..``, hidden name or NUL byte."""
    if not relative or "\0" in relative or "\\" in relative:
        return False
    return not any(part in ("", ".", "..") or part.startswith(".") for part in relative.split("/"))


def docs_path(root: Path, relative: str) -> Path | None:
    """The file ``relative`` names under ``root``, or None when it is not a served file.

    Refuses what ``safe_relative`` refuses, and anything whose real path (symlinks
    resolved) is not a file inside ``root``.
    """
    if not safe_relative(relative):
        return None
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    return candidate


def served_files(root: Path) -> list[str]:
    """Every served file under ``root``, as sorted relative paths."""
    found = []
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if docs_path(root, relative) is not None:
            found.append(relative)
    return sorted(found)


class DocsRepo(
    ResourceRepo,
    prefix=PREFIX,
    cache_control=("public", 30_000),
):
    """The files under the directory given as ``arg``. Plain ``def`` hooks run in a thread."""

    def templates(self, arg: Path) -> list[dict[str, Any]]:
        return [
            resource_template(
                PREFIX + "{path}",
                "docs",
                title="Documentation files",
                description="A file under the docs directory, by relative path.",
            )
        ]

    def parse_uri(self, uri: str, arg: Path) -> Mapping[str, Any] | None:
        # Runs on the event loop for every read: a syntax check only, the disk is read() work.
        relative = uri[len(PREFIX) :] if uri.startswith(PREFIX) else ""
        return {"path": relative} if safe_relative(relative) else None

    def list(self, cursor: Any, channel: Channel, arg: Path) -> tuple[list[dict[str, Any]], Any]:
        files = served_files(arg)
        start = cursor if isinstance(cursor, int) else 0
        page = files[start : start + PAGE]
        items = [
            resource_item(
                PREFIX + relative,
                relative,
                mime_type=mimetypes.guess_type(relative)[0] or "application/octet-stream",
                size=(arg / relative).stat().st_size,
            )
            for relative in page
        ]
        return items, (start + PAGE if start + PAGE < len(files) else None)

    def read(self, request: ResourceRequest, channel: Channel, arg: Path) -> Any:
        path = docs_path(arg, request.params["path"])
        if path is None:
            return ResourceNotFound()
        data = path.read_bytes()
        if len(data) > MAX_BYTES:
            return Error(f"{request.uri} is over {MAX_BYTES} bytes", code=-32602)
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        try:
            contents = text_contents(request.uri, data.decode("utf-8"), mime_type=mime)
        except UnicodeDecodeError:
            contents = blob_contents(request.uri, data, mime_type=mime)
        return Result(read_resource_result(contents))

    def complete(self, argument: str, value: str, context: Mapping[str, str], arg: Path) -> Any:
        return [path for path in served_files(arg) if path.startswith(value)]


@dataclass
class Motd:
    """The message of the day, and the Suite to tell when it changes."""

    text: str
    suite: Suite | None = None


class MotdRepo(ResourceRepo, prefix="motd://"):
    async def read(self, request: ResourceRequest, channel: Channel, arg: Motd) -> Any:
        if request.uri != "motd://today":
            return ResourceNotFound()
        return Result(read_resource_result(text_contents(request.uri, arg.text)))

    async def list(self, cursor: Any, channel: Channel, arg: Motd) -> Any:
        return [resource_item("motd://today", "motd", mime_type="text/plain")], None


class SetMotd(
    Tool,
    name="set_motd",
    description="Changes the message of the day (motd://today).",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
):
    async def call(self, request: ToolRequest, channel: Channel, arg: Motd) -> Result:
        arg.text = request.arguments["text"]
        if arg.suite is not None:
            arg.suite.resource_updated("motd://today")
        return Result(call_tool_result(text="Message of the day changed."))


class SummarizeFile(
    Prompt,
    name="summarize_file",
    title="Summarize a file",
    description="Asks the model to summarize one of the docs files.",
    arguments=[
        {"name": "path", "description": "Relative path of the file", "required": True},
        {"name": "style", "description": "How to summarize: " + ", ".join(STYLES)},
    ],
):
    def get(self, request: PromptRequest, channel: Channel, arg: Path) -> Any:
        relative = request.arguments["path"]
        path = docs_path(arg, relative)
        if path is None:
            return Error(f"Invalid params: no file {relative!r}", code=-32602)
        style = request.arguments.get("style", "brief")
        uri = PREFIX + relative
        mime = mimetypes.guess_type(path.name)[0] or "text/plain"
        messages = [
            user_message(embedded_resource(uri, text=path.read_text("utf-8"), mime_type=mime)),
            user_message(f"Summarize {relative} above ({style})."),
        ]
        return Result(get_prompt_result(messages, description=f"Summary of {relative}"))

    def complete(self, argument: str, value: str, context: Mapping[str, str], arg: Path) -> Any:
        if argument == "style":
            return [style for style in STYLES if style.startswith(value)]
        return [path for path in served_files(arg) if path.startswith(value)]


DOCS = Path(os.environ.get("DOCS_DIR") or Path(__file__).parent).resolve()
MOTD = Motd("Hello from genmcp.")

router = mcp_router(
    server_name="genmcp-resources-prompts",
    server_version="0.1.0",
    tools=[(SetMotd, MOTD)],
    prompts=[(SummarizeFile, DOCS)],
    resources=[
        StaticResource(
            uri="about://server",
            name="about",
            text="An example genmcp server with resources and prompts.",
            mime_type="text/plain",
            cache_control=("public", 3_600_000),
        ),
        (DocsRepo, DOCS),
        (MotdRepo, MOTD),
    ],
)
MOTD.suite = router.suite

app = FastAPI(title="genmcp resources and prompts example")
app.include_router(router, prefix="/mcp")
