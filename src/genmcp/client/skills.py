"""``Skills``: the Skills extension (SEP-2640) as a host uses it, through ``client.skills``.

    entries = await client.skills.list()              # skills/list, every page
    skill = await client.skills.load(entries[0])      # fetches SKILL.md alone, verified
    forms = await skill.read("references/FORMS.md")   # one file, when it is needed

What the extension asks of a host, done here:

* **Nothing ahead of need.** Listing and getting entries fetch no file; ``load`` fetches the
  ``SKILL.md`` only; every other file is fetched by ``read``, once (kept on the skill).
* **Verification on read.** A file the manifest lists is checked against its entry: the
  byte length against ``size`` (``SizeMismatch``), then the ``sha256`` against ``digest``
  (``DigestMismatch``); a fetched ``SKILL.md``'s frontmatter, parsed as YAML, against the
  entry's ``frontmatter``, field by field (``FrontmatterMismatch``). A file inside the skill
  the manifest does not list is not fetched (``UnlistedSkillFile``). Content that fails is
  never returned. A skill whose ``resources`` is ``"dynamic"`` has no manifest: its files
  are returned with ``verified=False`` (its ``SKILL.md`` frontmatter is still compared).
* **Bounded.** A manifest over ``max_files`` files or ``max_bytes`` bytes in all (the
  extension's 512 and 16 MiB by default) is ``SkillTooLarge`` before anything is fetched;
  every read is bounded by the client's ``max_message_bytes`` as well.

A digest match proves the file is the one the entry described, not that the server is to be
trusted: the entry comes from the same server. Either era: the methods and the manifest are
the same in a 2025 session.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from genmcp.client.errors import (
    ClientError,
    DigestMismatch,
    FrontmatterMismatch,
    SizeMismatch,
    SkillTooLarge,
    UnlistedSkillFile,
)
from genmcp.protocol.frontmatter import parse_frontmatter
from genmcp.protocol.methods import SKILLS_GET, SKILLS_LIST
from genmcp.protocol.skills import (
    MAX_SKILL_BYTES,
    MAX_SKILL_RESOURCES,
    SKILL_FILE,
    file_uri,
    sha256_digest,
)

__all__ = ["LoadedSkill", "SkillFile", "Skills"]

DYNAMIC: Final = "dynamic"
"""``resources`` of an entry whose files are generated: no manifest to verify against."""
_DIGEST: Final = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)


class _Requests(Protocol):
    """What ``Skills`` needs of a ``Client`` (typed here, so no import cycle)."""

    url: str

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any: ...

    async def list_all(self, method: str, key: str) -> list[dict[str, Any]]: ...

    async def read_resource(self, uri: str) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SkillFile:
    """One fetched skill file: its raw bytes, checked against the manifest (``verified``),
    or unchecked when the skill's resources are ``"dynamic"``."""

    uri: str
    data: bytes
    mime_type: str | None
    verified: bool

    @property
    def text(self) -> str:
        """The bytes as UTF-8 text (a ``UnicodeDecodeError`` for a binary file)."""
        return self.data.decode("utf-8")


@dataclass(frozen=True)
class _Listed:
    """A manifest entry: what the file's bytes must be."""

    digest: str
    size: int


class LoadedSkill:
    """A skill whose ``SKILL.md`` was fetched and verified; ``read`` fetches its other files.

    ``entry`` is the entry it was loaded from, ``name`` and ``frontmatter`` its fields,
    ``skill_md`` the verified ``SKILL.md`` and ``root`` the skill directory's URI.
    """

    def __init__(
        self,
        client: _Requests,
        entry: Mapping[str, Any],
        manifest: dict[str, _Listed] | None,
    ) -> None:
        self.client = client
        self.entry = dict(entry)
        self.uri: str = entry["uri"]
        self.frontmatter: dict[str, Any] = dict(entry["frontmatter"])
        self.root = self.uri[: -len("/" + SKILL_FILE)]
        self._manifest = manifest
        self._fetched: dict[str, SkillFile] = {}

    @property
    def name(self) -> str:
        """The skill's ``name`` (its frontmatter's)."""
        return str(self.frontmatter.get("name", ""))

    @property
    def skill_md(self) -> SkillFile:
        """The verified ``SKILL.md``."""
        return self._fetched[self.uri]

    @property
    def files(self) -> list[str]:
        """The URIs the manifest lists (empty for a ``"dynamic"`` skill)."""
        return list(self._manifest or {})

    def uri_of(self, path: str) -> str:
        """The URI of ``path``: a URI as it is, else a path relative to the skill's root."""
        if "://" in path:
            return path
        scheme, _, rest = self.root.partition("://")
        return file_uri(scheme, rest, path.strip("/"))

    async def read(self, path: str) -> SkillFile:
        """One file of the skill, fetched now (once) and verified against the manifest.

        Raises ``UnlistedSkillFile`` (nothing fetched) for a file of the skill the manifest
        does not list, ``SizeMismatch``/``DigestMismatch`` for content that is not the
        listed file's, ``ValueError`` for a URI outside the skill (``..`` segments included).
        """
        uri = self.uri_of(path)
        inside = uri[len(self.root) + 1 :].split("/")
        if not uri.startswith(self.root + "/") or {".", ".."} & set(inside):
            raise ValueError(f"{uri} is not a file of the skill at {self.root}")
        found = self._fetched.get(uri)
        if found is None:
            found = await _fetch(self.client, uri, self._manifest)
            self._fetched[uri] = found
        return found


class Skills:
    """The Skills extension on one client's server: ``client.skills`` (a fresh one per use).

    Args:
        client: the ``Client``.
        max_files, max_bytes: the most files and bytes in all (the sum of the manifest's
            ``size``) a skill may list to be loaded; the extension's 512 and 16 MiB, which
            every host must accept, by default.
    """

    def __init__(
        self,
        client: _Requests,
        *,
        max_files: int = MAX_SKILL_RESOURCES,
        max_bytes: int = MAX_SKILL_BYTES,
    ) -> None:
        self.client = client
        self.max_files = max_files
        self.max_bytes = max_bytes

    async def list(self) -> list[dict[str, Any]]:
        """Every skill's entry (``skills/list``, every page); no file is fetched."""
        return await self.client.list_all(SKILLS_LIST, "skills")

    async def get(self, uri: str) -> dict[str, Any]:
        """One skill's entry, by its ``SKILL.md`` URI (``skills/get``); ``RPCError`` -32602
        when the server serves no such skill. No file is fetched."""
        result = await self.client.request(SKILLS_GET, {"uri": uri})
        skill = (result or {}).get("skill") if isinstance(result, Mapping) else None
        if not isinstance(skill, Mapping):
            raise ClientError(f"{self.client.url}: skills/get for {uri} answered no skill entry")
        return dict(skill)

    async def load(self, entry: Mapping[str, Any] | str) -> LoadedSkill:
        """Load a skill: fetch its ``SKILL.md`` alone and verify it (size, digest, and its
        frontmatter against the entry's). ``entry`` is an entry from :meth:`list` or
        :meth:`get`, or a ``SKILL.md`` URI (its entry is got first).

        Raises ``SkillTooLarge`` (nothing fetched) for a manifest past ``max_files`` or
        ``max_bytes``, a ``SkillVerificationError`` for a ``SKILL.md`` that is not the one
        the entry describes, ``ClientError`` for an entry that is not one.
        """
        if isinstance(entry, str):
            entry = await self.get(entry)
        uri = entry.get("uri")
        where = f"{self.client.url}: skill entry {uri!r}"
        if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE) or "://" not in uri:
            raise ClientError(f"{where}: its uri is not a <scheme>://<path>/SKILL.md URI")
        if not isinstance(entry.get("frontmatter"), Mapping):
            raise ClientError(f"{where}: it has no frontmatter object")
        manifest = self._manifest(entry.get("resources"), where)
        skill = LoadedSkill(self.client, entry, manifest)
        found = await _fetch(self.client, uri, manifest)
        try:
            parsed = parse_frontmatter(found.data.decode("utf-8"), uri)
        except (UnicodeDecodeError, ValueError) as exc:
            raise FrontmatterMismatch(
                f"{uri}: the fetched SKILL.md has no frontmatter to compare with its entry's "
                f"({exc}); the skill is not loaded",
                uri,
            ) from None
        differ = sorted(
            key
            for key in set(parsed) | set(skill.frontmatter)
            if not _same(parsed.get(key), skill.frontmatter.get(key))
        )
        if differ:
            raise FrontmatterMismatch(
                f"{uri}: the fetched SKILL.md's frontmatter differs from its entry's in "
                f"{', '.join(map(repr, differ))}; the skill is not loaded",
                uri,
            )
        skill._fetched[uri] = found
        return skill

    def _manifest(self, resources: Any, where: str) -> dict[str, _Listed] | None:
        """The entry's ``resources`` as ``{uri: (digest, size)}``, within the bounds; None
        for ``"dynamic"``."""
        if resources == DYNAMIC:
            return None
        if not isinstance(resources, list):
            raise ClientError(f"{where}: its resources are neither a list nor {DYNAMIC!r}")
        if len(resources) > self.max_files:
            raise SkillTooLarge(
                f"{where} lists {len(resources)} files, more than the {self.max_files} this "
                "client loads (Skills(max_files=...) changes it)",
                "max_files",
                self.max_files,
            )
        manifest: dict[str, _Listed] = {}
        for item in resources:
            file = item if isinstance(item, Mapping) else {}
            uri, digest, size = file.get("uri"), file.get("digest"), file.get("size")
            if (
                not isinstance(uri, str)
                or not isinstance(digest, str)
                or not _DIGEST.fullmatch(digest)
                or not isinstance(size, int)
                or isinstance(size, bool)
                or size < 0
            ):
                raise ClientError(f"{where}: a manifest item is not {{uri, digest, size}}: "
                                  f"{item!r}")  # fmt: skip
            manifest[uri] = _Listed(digest, size)
        total = sum(listed.size for listed in manifest.values())
        if total > self.max_bytes:
            raise SkillTooLarge(
                f"{where} lists {total} bytes, more than the {self.max_bytes} this client "
                "loads (Skills(max_bytes=...) changes it)",
                "max_bytes",
                self.max_bytes,
            )
        return manifest


async def _fetch(client: _Requests, uri: str, manifest: dict[str, _Listed] | None) -> SkillFile:
    """``resources/read`` of one skill file, verified against ``manifest`` (None: dynamic)."""
    listed = None if manifest is None else manifest.get(uri)
    if manifest is not None and listed is None:
        raise UnlistedSkillFile(
            f"{uri} is not in its skill's manifest: nothing could verify it, so it is not fetched",
            uri,
        )
    data, mime_type = _content(await client.read_resource(uri), uri, client.url)
    if listed is not None:
        if len(data) != listed.size:
            raise SizeMismatch(
                f"{uri}: {len(data)} bytes read where the manifest lists {listed.size}; "
                "the content is not used",
                uri,
            )
        if sha256_digest(data) != listed.digest:
            raise DigestMismatch(
                f"{uri}: the content's digest is not the manifest's {listed.digest}; the "
                "content is not used",
                uri,
            )
    return SkillFile(uri, data, mime_type, verified=listed is not None)


def _content(result: Mapping[str, Any], uri: str, url: str) -> tuple[bytes, str | None]:
    """The raw bytes (UTF-8 of ``text``, or the decoded ``blob``) and MIME type of ``uri``'s
    content in a ``resources/read`` result."""
    contents = [c for c in result.get("contents") or () if isinstance(c, Mapping)]
    mine = [c for c in contents if c.get("uri") == uri] or (contents if len(contents) == 1 else [])
    if len(mine) != 1:
        raise ClientError(f"{url}: resources/read of {uri} answered {len(mine)} contents "
                          "for it, not one")  # fmt: skip
    [content] = mine
    mime_type = content.get("mimeType")
    mime = mime_type if isinstance(mime_type, str) else None
    if isinstance(content.get("text"), str):
        return content["text"].encode("utf-8"), mime
    if isinstance(content.get("blob"), str):
        try:
            return base64.b64decode(content["blob"], validate=True), mime
        except binascii.Error:
            raise ClientError(f"{url}: resources/read of {uri}: the blob is not base64") from None
    raise ClientError(f"{url}: resources/read of {uri} answered neither text nor a blob")


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``; ``1`` is ``1.0``; objects by keys, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
