"""The skills a Suite serves (SEP-2640): ``skills/list``, ``skills/get``,
``resources/directory/read``, and their files as resources.

A :class:`SkillGroup` is one provider (a ``Skill`` or a ``SkillRepo``) built once: its skills
(``genmcp.skills.content``), every file by URI, its scopes and cache hint. Adding a group
also serves its files through the resource catalog, as one private repository
(:class:`SkillFiles`), so ``resources/read``, ``resources/list``, subscriptions and scopes
work for skill files exactly as for any resource. :class:`SkillCatalog` answers:

- ``skills/list``: every entry, sorted by URI, in pages built once per change with sealed
  cursors (``listing.Pages``); an entry (its whole manifest) is never split across pages.
- ``skills/get``: one entry by the URI of its ``SKILL.md``; -32602 when it names no skill.
- ``resources/directory/read``: the direct children of a skill directory, paginated the
  same way; -32602 for a URI that is not a served directory.

With OAuth a caller sees only the skills whose scopes it holds (``visible``): the others are
left out of the list and answered as unknown. Every method is -32601 while no skill
provider is served.

Imports genmcp's core modules and the skills package; never asyncio, never a web framework.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from genmcp.call.job import Handlers, require
from genmcp.catalogs.listing import Pages, PageSets, Served, hidden_keys, merge_cache
from genmcp.errors import MCPError
from genmcp.outcomes import CacheControl, ResourceNotFound, Result
from genmcp.protocol.jsonrpc import Request
from genmcp.protocol.methods import RESOURCES_DIRECTORY_READ, SKILLS_GET, SKILLS_LIST
from genmcp.protocol.resources import read_resource_result
from genmcp.protocol.skills import SKILLS_EXTENSION, server_settings
from genmcp.resources import ListPage, ReadOutcome, ResourceRepo, ResourceRequest
from genmcp.skills.content import SkillContent, SkillFile, build_skill
from genmcp.skills.skill import Skill, SkillRepo

if TYPE_CHECKING:
    from genmcp.catalogs.resources import ResourceCatalog
    from genmcp.channel import Channel

__all__ = ["SkillCatalog", "SkillFiles", "SkillGroup", "SkillProvider"]

SkillProvider = type[Skill] | type[SkillRepo] | tuple[type[Skill] | type[SkillRepo], Any]
"""A ``Skill`` or ``SkillRepo`` class, or ``(cls, arg)``; ``arg`` reaches every hook."""

FILES_KEY: Final = "skills:"
"""Prefix of the resource catalog key of a group's files (never a URI: routing is exact)."""
MAX_DIRECTORY_PAGES: Final = 256
"""Directory listings kept built (one per directory and set of hidden skills)."""


class SkillGroup:
    """One served skill provider: its skills and files, built once."""

    __slots__ = ("cache", "files", "items", "name", "owner", "page_size", "scopes", "skills")

    def __init__(self, cls: Any, arg: Any, page_size: int) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Skill | SkillRepo)):
            raise TypeError(
                f"{cls!r} is not a Skill or SkillRepo subclass (give a class or (class, arg))"
            )
        behaviour = cls()
        self.owner, self.page_size = cls.__qualname__, page_size
        scheme, prefix = str(behaviour.info("scheme", arg)), str(behaviour.info("prefix", arg))
        if isinstance(behaviour, Skill):
            built = [
                build_skill(
                    scheme,
                    prefix,
                    _checked_files(behaviour.files(arg), self.owner),
                    where=self.owner,
                    meta=behaviour.info("_meta", arg),
                )
            ]
            self.name = built[0].uri
        else:
            built = _repo_skills(behaviour, arg, scheme, prefix, self.owner)
            directory = behaviour.directory(arg)
            self.name = self.owner if directory is None else str(directory)
        self.skills: dict[str, SkillContent] = {}
        for content in built:
            if content.uri in self.skills:
                raise ValueError(f"{self.owner}: two skills at {content.uri}")
            self.skills[content.uri] = content
        self.files: dict[str, SkillFile] = {
            uri: file for content in built for uri, file in content.files.items()
        }
        self.items = [self.files[uri].item for uri in sorted(self.files)]
        self.scopes: tuple[str, ...] = behaviour.required_scopes(arg)
        self.cache: CacheControl = behaviour.cache_control(arg)

    def required_scopes(self) -> tuple[str, ...]:
        """The scopes a caller needs to see and read these skills (auth)."""
        return self.scopes


def _checked_files(files: Any, owner: str) -> dict[str, bytes]:
    if not isinstance(files, Mapping) or not all(
        isinstance(path, str) and isinstance(data, bytes) for path, data in files.items()
    ):
        raise TypeError(f"{owner}: files() must return a mapping of relative path -> bytes")
    return dict(files)


def _repo_skills(
    repo: SkillRepo, arg: Any, scheme: str, prefix: str, owner: str
) -> list[SkillContent]:
    found = repo.skills(arg)
    if not isinstance(found, Mapping):
        raise TypeError(f"{owner}: skills() must return a mapping of directory -> files")
    directory = repo.directory(arg)
    built = []
    for relative, files in sorted(found.items()):
        parts = [part for part in str(relative).split("/") if part]
        expected = parts[-1] if parts else (None if directory is None else directory.name)
        inner = "/".join(part for part in (prefix.strip("/"), *parts[:-1]) if part)
        where = f"{owner} ({relative or '.'})"
        content = build_skill(
            scheme, inner, _checked_files(files, where), where=where, expected_name=expected
        )
        built.append(content)
    return built


class SkillFiles(ResourceRepo, prefix=FILES_KEY):
    """The files of one skill group as resources (its ``arg`` is the group)."""

    def prefix(self, arg: Any) -> str:
        return FILES_KEY + str(arg.name)

    def parse_uri(self, uri: str, arg: Any) -> Mapping[str, Any] | None:
        return {} if uri in arg.files else None

    async def list(self, cursor: Any, channel: Channel, arg: Any) -> ListPage:
        group: SkillGroup = arg
        start = cursor if isinstance(cursor, int) and cursor > 0 else 0
        end = start + group.page_size
        return group.items[start:end], (end if end < len(group.items) else None)

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> ReadOutcome:
        file = arg.files.get(request.uri)
        return ResourceNotFound() if file is None else Result(read_resource_result(file.contents()))

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        return tuple(arg.scopes)

    def cache_control(self, arg: Any) -> CacheControl:
        cache: CacheControl = arg.cache
        return cache


Visible = Callable[[SkillGroup], bool]


class SkillCatalog(Served):
    """The served skill groups, and the Skills extension's methods over them."""

    def __init__(self, *, resources: ResourceCatalog, **served: Any) -> None:
        self._resources = resources
        super().__init__(**served)

    def _start_empty(self) -> None:
        self.groups: dict[str, SkillGroup] = {}
        self._owners: dict[str, SkillGroup] = {}  # skill URI -> its group
        self._directories: dict[str, list[tuple[SkillContent, SkillGroup]]] = {}
        self._pages = PageSets(self._build)
        self._listings: dict[tuple[str, frozenset[str]], Pages] = {}

    def __bool__(self) -> bool:
        return bool(self.groups)

    def extension(self) -> dict[str, Any]:
        """``{SKILLS_EXTENSION: settings}`` for ``capabilities.extensions``, or ``{}``."""
        return {SKILLS_EXTENSION: server_settings(directory_read=True)} if self else {}

    # -- configuration ---------------------------------------------------------------------

    def add(self, provider: Any) -> SkillGroup:
        """Serve one more skill provider; a key or skill URI already served raises."""
        cls, arg = provider if isinstance(provider, tuple) else (provider, None)
        group = SkillGroup(cls, arg, self.page_size)
        if group.name in self.groups:
            raise ValueError(f"{group.owner}: {group.name!r} is already served")
        for uri in group.skills:
            other = self._owners.get(uri)
            if other is not None:
                raise ValueError(f"{group.owner}: skill {uri} is already served by {other.owner}")
        self._resources.add((SkillFiles, group))
        self.groups[group.name] = group
        self._changed()
        return group

    def remove(self, key: str) -> bool:
        """Stop serving the group ``key`` (a Skill's ``SKILL.md`` URI, a SkillRepo's
        directory); False when there is none."""
        group = self.groups.pop(key, None)
        if group is None:
            return False
        self._resources.remove(FILES_KEY + group.name)
        self._changed()
        return True

    def _changed(self) -> None:
        self._owners = {uri: g for g in self.groups.values() for uri in g.skills}
        self._directories = {}
        for group in self.groups.values():
            for content in group.skills.values():
                for directory in content.directories:
                    self._directories.setdefault(directory, []).append((content, group))
        self._pages.clear()
        self._listings.clear()

    def required_scopes(self, uri: str) -> tuple[str, ...]:
        """The scopes of the skill ``uri`` names (its ``SKILL.md`` or a directory of it)."""
        group = self._owners.get(uri)
        if group is None:
            owners = self._directories.get(uri)
            group = owners[0][1] if owners else None
        return () if group is None else group.scopes

    # -- the methods -----------------------------------------------------------------------

    def handlers(self) -> Handlers:
        """``skills/list``, ``skills/get`` and ``resources/directory/read``."""

        def list_skills(request: Request, meta: dict[str, Any], assigns: Any) -> dict[str, Any]:
            require(bool(self), request)
            hidden = hidden_keys(self._owners, _visible(assigns))
            return self._pages.page(hidden, request.params.get("cursor"))

        def get_skill(request: Request, meta: dict[str, Any], assigns: Any) -> dict[str, Any]:
            require(bool(self), request)
            return self.get(request.params, _visible(assigns))

        def read_directory(request: Request, meta: dict[str, Any], assigns: Any) -> dict[str, Any]:
            require(bool(self), request)
            return self.directory(request.params, _visible(assigns))

        return {
            SKILLS_LIST: list_skills,
            SKILLS_GET: get_skill,
            RESOURCES_DIRECTORY_READ: read_directory,
        }

    def _build(self, hidden: frozenset[str]) -> Pages:
        shown = [uri for uri in sorted(self._owners) if uri not in hidden]
        return Pages(
            SKILLS_LIST,
            "skills",
            [self._owners[uri].skills[uri].entry for uri in shown],
            merge_cache(self._owners[uri].cache for uri in shown),
            self.page_size,
            self._sealer,
            self._result_meta,
        )

    def get(self, params: Mapping[str, Any], visible: Visible | None) -> dict[str, Any]:
        """The ``skills/get`` result for ``params.uri``."""
        uri = _uri(params, SKILLS_GET)
        group = self._owners.get(uri)
        if group is None or (visible is not None and not visible(group)):
            raise MCPError(
                "unknown_skill",
                f"Invalid params: no skill is served at {uri} (skills/get takes the URI of a "
                "skill's SKILL.md, as skills/list gives it)",
                {"uri": uri},
            )
        scope, ttl = group.cache
        return {
            "resultType": "complete",
            "skill": group.skills[uri].entry,
            "ttlMs": ttl,
            "cacheScope": scope,
            "_meta": self._result_meta,
        }

    def directory(self, params: Mapping[str, Any], visible: Visible | None) -> dict[str, Any]:
        """One page of ``resources/directory/read`` for ``params.uri``."""
        uri = _uri(params, RESOURCES_DIRECTORY_READ)
        owners = [
            (content, group)
            for content, group in self._directories.get(uri, ())
            if visible is None or visible(group)
        ]
        if not owners:
            raise MCPError(
                "not_a_directory",
                f"Invalid params: {uri} is not a directory resource of this server (directories "
                "are a skill's root, its SKILL.md URI without /SKILL.md, and its subdirectories)",
                {"uri": uri},
            )
        key = (uri, frozenset(content.uri for content, _ in owners))
        pages = self._listings.get(key)
        if pages is None or pages.stale:
            if len(self._listings) >= MAX_DIRECTORY_PAGES:
                self._listings.clear()
            children: dict[str, dict[str, Any]] = {}
            for content, _ in owners:
                children.update(content.directories[uri])
            pages = self._listings[key] = Pages(
                RESOURCES_DIRECTORY_READ,
                "resources",
                [children[child] for child in sorted(children)],
                merge_cache(group.cache for _, group in owners),
                self.page_size,
                self._sealer,
                self._result_meta,
            )
        return pages.page(params.get("cursor"))


def _uri(params: Mapping[str, Any], method: str) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise MCPError("invalid_params", f"Invalid params: {method} needs params.uri (a string)")
    return uri


def _visible(assigns: Mapping[str, Any]) -> Visible | None:
    """Auth: None without OAuth, else whether the caller holds a group's scopes."""
    held = assigns.get("effective_scopes")
    if held is None:
        return None
    return lambda group: set(group.scopes) <= held
