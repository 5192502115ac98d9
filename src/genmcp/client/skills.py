"""``Skills``: the Skills extension (SEP-2640) from the client's side, verified on read.

A server offering skills lists them with ``skills/list``: each entry names its ``SKILL.md``
(``uri``), the ``frontmatter`` of that file, and every file of the skill (``resources``: a
``uri``, a ``digest`` ``sha256:<hex>`` and a ``size`` in bytes). Nothing is fetched when
listing (the draft forbids prefetching): :meth:`Skills.load` reads a skill's ``SKILL.md``
and :meth:`Skills.read` one of its files, each only when asked, and each checked before it
is handed over, as the draft's verification rules ask:

* a URI the entry does not list is refused before any request is sent;
* a read whose byte length differs from the entry's ``size``, or whose SHA-256 differs from
  its ``digest`` (or whose digest is not ``sha256:``), is refused;
* a ``SKILL.md`` whose YAML frontmatter differs from the entry's, field by field, is
  refused.

A refusal is :class:`SkillVerificationError`; the content is never returned. Frontmatter is
read as the server reads it (YAML's safe types, without the implicit booleans and
timestamps: ``yes`` and ``2026-01-01`` stay strings). Imports the client and PyYAML.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from genmcp.client.errors import ClientError
from genmcp.protocol.methods import SKILLS_LIST

if TYPE_CHECKING:
    from genmcp.client.client import Client

__all__ = ["SKILLS_EXTENSION", "SkillVerificationError", "Skills"]

SKILLS_EXTENSION: Final = "io.modelcontextprotocol/skills"
"""The extension's identifier (in ``capabilities.extensions``)."""
_FRONTMATTER: Final = re.compile(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)
_PLAIN_TAGS: Final = frozenset({"tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp"})


class SkillVerificationError(ClientError):
    """A skill file failed verification (unlisted, size, digest or frontmatter): it is not
    used. ``uri`` names the file, ``reason`` the rule (``unlisted``, ``size``, ``digest``,
    ``frontmatter``)."""

    def __init__(self, uri: str, reason: str, message: str) -> None:
        super().__init__(f"{uri}: {message}")
        self.uri, self.reason = uri, reason


class Skills:
    """The skills of one connected :class:`~genmcp.client.Client`.

    ``async with Client(url) as client: skills = Skills(client)``; then
    ``entries = await skills.list()``, ``text = await skills.load(entries[0])`` and
    ``data = await skills.read(entries[0], uri)``.
    """

    def __init__(self, client: Client) -> None:
        self.client = client

    async def list(self) -> list[dict[str, Any]]:
        """Every skill entry (``skills/list``, every page); no file is read."""
        return await self.client.list_all(SKILLS_LIST, "skills")

    async def load(self, entry: Mapping[str, Any]) -> str:
        """The skill's ``SKILL.md``, verified (listed, size, digest, frontmatter)."""
        uri = str(entry.get("uri"))
        text = (await self.read(entry, uri)).decode("utf-8", errors="strict")
        found = _frontmatter(text)
        expected = entry.get("frontmatter")
        if found is None or not isinstance(expected, Mapping) or dict(expected) != found:
            differing = _differences(found or {}, expected if isinstance(expected, Mapping) else {})
            raise SkillVerificationError(
                uri, "frontmatter", f"the frontmatter differs from the listing's ({differing})"
            )
        return text

    async def read(self, entry: Mapping[str, Any], uri: str) -> bytes:
        """One file of the skill, verified against the entry: its bytes."""
        listed = _listed(entry, uri)
        result = await self.client.read_resource(uri)
        contents = result.get("contents") if isinstance(result, Mapping) else None
        if not isinstance(contents, list) or len(contents) != 1:
            raise SkillVerificationError(uri, "digest", "the read did not answer one content")
        data = _bytes_of(contents[0], uri)
        size = listed.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or len(data) != size:
            raise SkillVerificationError(
                uri, "size", f"{len(data)} bytes read, the listing says {size}"
            )
        digest = listed.get("digest")
        algorithm, _, expected = str(digest).partition(":")
        actual = hashlib.sha256(data).hexdigest()
        if algorithm != "sha256" or not hmac.compare_digest(expected.lower(), actual):
            raise SkillVerificationError(uri, "digest", "the content's digest is not the listing's")
        return data


def _listed(entry: Mapping[str, Any], uri: str) -> Mapping[str, Any]:
    for resource in entry.get("resources") or ():
        if isinstance(resource, Mapping) and resource.get("uri") == uri:
            return resource
    raise SkillVerificationError(uri, "unlisted", "the skill's listing does not name this file")


def _bytes_of(content: Any, uri: str) -> bytes:
    if isinstance(content, Mapping) and isinstance(content.get("text"), str):
        return str(content["text"]).encode("utf-8")
    if isinstance(content, Mapping) and isinstance(content.get("blob"), str):
        try:
            return base64.b64decode(str(content["blob"]), validate=True)
        except (binascii.Error, ValueError):
            raise SkillVerificationError(uri, "digest", "the blob is not base64") from None
    raise SkillVerificationError(uri, "digest", "the content has neither text nor blob")


def _frontmatter(text: str) -> dict[str, Any] | None:
    """The YAML frontmatter of a ``SKILL.md``, or None when it has none that parses."""
    import yaml

    class Loader(yaml.SafeLoader):
        """Safe YAML, booleans and timestamps left as the strings they are written as."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in _PLAIN_TAGS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    match = _FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        return None
    try:
        data = yaml.load(match[1], Loader=Loader)
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def _differences(found: Mapping[str, Any], expected: Mapping[str, Any]) -> str:
    names = sorted(key for key in {*found, *expected} if found.get(key) != expected.get(key))
    return ", ".join(names) or "no frontmatter"
