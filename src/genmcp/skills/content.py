"""One skill as served: its files, its entry (frontmatter and manifest) and its directories.

:func:`build_skill` takes a skill's files (relative path -> raw bytes, however they were
found) and makes everything the Suite answers from, once: each file's URI, MIME type,
digest and size; the ``skills/list`` / ``skills/get`` entry; the ``resources/list`` items
(the ``SKILL.md`` named and described by its frontmatter, as the extension asks); and the
directory tree that ``resources/directory/read`` lists. Nothing is recomputed per request.

The rules it holds (each a ``ValueError`` naming the skill): a ``SKILL.md`` with valid
frontmatter, a ``name`` by the Agent Skills naming rule that equals the final segment of the
skill path, a usable path, and the extension's limits (512 files, 16 MiB).

Imports genmcp's protocol vocabulary and ``mimetypes``; no I/O beyond the MIME table.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from genmcp.protocol.frontmatter import parse_frontmatter
from genmcp.protocol.resources import blob_contents, resource_item, text_contents
from genmcp.protocol.skills import (
    MAX_SKILL_BYTES,
    MAX_SKILL_RESOURCES,
    SKILL_FILE,
    SKILL_MIME_TYPE,
    check_skill_path,
    directory_item,
    file_uri,
    skill_entry,
    skill_resource,
    valid_skill_name,
)

__all__ = ["SkillContent", "SkillFile", "build_skill"]

_TEXT_TYPES: Final = (
    "application/json",
    "application/xml",
    "application/yaml",
    "application/javascript",
    "application/x-sh",
)
_OWN_TYPES: Final = {
    ".md": SKILL_MIME_TYPE,
    ".markdown": SKILL_MIME_TYPE,
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill: where it is served and what ``resources/read`` answers."""

    uri: str
    path: str
    """Relative to the skill's root, ``/``-separated."""
    data: bytes
    mime_type: str
    item: dict[str, Any]
    """Its ``resources/list`` entry."""

    def contents(self) -> dict[str, Any]:
        """Its ``resources/read`` contents: text when it is UTF-8 text, else a base64 blob."""
        text = _text_of(self.data, self.mime_type)
        meta = self.item.get("_meta")
        if text is not None:
            return text_contents(self.uri, text, mime_type=self.mime_type, meta=meta)
        return blob_contents(self.uri, self.data, mime_type=self.mime_type, meta=meta)


@dataclass(frozen=True, slots=True)
class SkillContent:
    """A skill built once: its URI, entry, files and directory tree."""

    uri: str
    """The URI of its ``SKILL.md`` (the skill's identity within a server)."""
    root: str
    """Its root directory resource (``uri`` without ``/SKILL.md``)."""
    name: str
    entry: dict[str, Any]
    """The ``Skill`` entry of ``skills/list`` and ``skills/get``."""
    files: dict[str, SkillFile] = field(default_factory=dict)
    """By URI, sorted by path."""
    directories: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Directory URI -> its direct children (URI -> resource or directory item)."""


def build_skill(
    scheme: str,
    prefix: str,
    files: Mapping[str, bytes],
    *,
    where: str,
    expected_name: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> SkillContent:
    """Build the skill whose files are ``files`` (relative path -> bytes).

    Args:
        scheme: the URI scheme (``"skill"``).
        prefix: the organizational prefix of its path (``""``, or ``"acme/billing"``); the
            skill path is ``prefix/name``.
        files: every file of the skill, ``SKILL.md`` among them.
        where: what the skill is, for messages (its class, its directory).
        expected_name: the name its directory has, when it has one: the frontmatter
            ``name`` must equal it.
        meta: the ``_meta`` of its ``SKILL.md`` resource (keys should start with
            ``io.modelcontextprotocol.skills/``).
    """
    if SKILL_FILE not in files:
        raise ValueError(f"{where}: a skill needs a {SKILL_FILE} at its root")
    if len(files) > MAX_SKILL_RESOURCES or sum(map(len, files.values())) > MAX_SKILL_BYTES:
        raise ValueError(
            f"{where}: more than {MAX_SKILL_RESOURCES} files or {MAX_SKILL_BYTES} bytes, past "
            "the Skills extension's limits"
        )
    try:
        text = files[SKILL_FILE].decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: {SKILL_FILE} is not UTF-8 text") from None
    frontmatter = parse_frontmatter(text, where)
    name = frontmatter["name"]
    if not valid_skill_name(name):
        raise ValueError(
            f"{where}: skill name {name!r} breaks the Agent Skills naming rule (1-64 of "
            "a-z, 0-9 and '-', no leading, trailing or doubled '-')"
        )
    if expected_name is not None and name != expected_name:
        raise ValueError(f"{where}: frontmatter name {name!r} must equal its directory name")
    path = check_skill_path(f"{prefix.strip('/')}/{name}" if prefix.strip("/") else name)
    uri = file_uri(scheme, path, SKILL_FILE)
    root = file_uri(scheme, path)
    built: dict[str, SkillFile] = {}
    directories: dict[str, dict[str, dict[str, Any]]] = {root: {}}
    for relative in sorted(files):
        _check_relative(relative, where)
        data = files[relative]
        mime = _mime_type(relative)
        item_uri = file_uri(scheme, path, relative)
        if relative == SKILL_FILE:
            item = resource_item(
                item_uri,
                name,
                description=frontmatter["description"],
                mime_type=mime,
                size=len(data),
                meta=meta,
            )
        else:
            item = resource_item(item_uri, relative, mime_type=mime, size=len(data))
        built[item_uri] = SkillFile(item_uri, relative, data, mime, item)
        _index(directories, scheme, path, relative, item)
    manifest = [skill_resource(f.uri, f.data) for f in built.values()]
    entry = skill_entry(uri, frontmatter, manifest)
    return SkillContent(uri, root, name, entry, built, directories)


def _check_relative(relative: str, where: str) -> None:
    parts = relative.split("/")
    if not relative or any(part in ("", ".", "..") for part in parts) or "\\" in relative:
        raise ValueError(f"{where}: file path {relative!r} must be relative, '/'-separated")


def _index(
    directories: dict[str, dict[str, dict[str, Any]]],
    scheme: str,
    path: str,
    relative: str,
    item: dict[str, Any],
) -> None:
    """Enter ``relative`` and every directory above it in the tree."""
    parts = relative.split("/")
    parent = file_uri(scheme, path)
    for depth in range(1, len(parts)):
        here = file_uri(scheme, path, "/".join(parts[:depth]))
        directories[parent].setdefault(here, directory_item(here, parts[depth - 1]))
        directories.setdefault(here, {})
        parent = here
    directories[parent][item["uri"]] = {**item, "name": parts[-1]}


def _mime_type(relative: str) -> str:
    suffix = relative[relative.rfind(".") :].lower() if "." in relative else ""
    if suffix in _OWN_TYPES:
        return _OWN_TYPES[suffix]
    guessed, _ = mimetypes.guess_type(relative, strict=False)
    return guessed or "application/octet-stream"


def _text_of(data: bytes, mime_type: str) -> str | None:
    if not (mime_type.startswith("text/") or mime_type in _TEXT_TYPES or "+json" in mime_type):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
