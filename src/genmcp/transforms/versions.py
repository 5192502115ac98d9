"""``versioned``: several versions of one tool under one name, pinned per call by ``_meta``.

``Suite(tools=[versioned("search", {"1": SearchV1, "2.0": SearchV2})])`` serves one tool
``search``. A call runs the version its ``_meta["dev.genmcp/version"]`` names
(:data:`PIN`), else the newest one the caller may see. Versions order by their numeric
parts (``"1.10"`` after ``"1.9"``).

Visibility and tenancy are per version: each version's ``scopes=`` and ``visible`` hook
decide whether a caller may run it; the tool is listed to a caller who may run one of
them, and the listing is that caller's own: it describes the newest version *the caller*
may run (title, description, schemas, annotations) and names the versions it may run in
``_meta["dev.genmcp/versions"]`` (oldest first) and ``_meta["dev.genmcp/version"]`` (the
newest of them). A restricted version (a beta for one tenant) is listed, run and pinned by
those who may see it, never shown to the others. The versions a caller may not run are
parts of the tool hidden from it (``hidden_parts``, ``genmcp.visibility``), so callers who
see different versions get different list pages (each built, cached and compressed once).
Where no caller is known, the tool's descriptor names the *public* versions (no scopes, no
``visible`` hook of their own), or all of them when none is public.

A pin naming a version that does not exist, or that the caller may not see, is the same
-32602 error (``data.versions``: the versions the caller may pin), never the call of
another version.

Each version is an ordinary tool class (or ``(cls, arg)``); its arguments are validated
against its own input schema. Imports genmcp's tool layer, schema and visibility.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from genmcp.caller import Caller
from genmcp.errors import MCPError
from genmcp.tools import Tool, ToolRequest
from genmcp.visibility import caller_of

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["PIN", "VERSIONS", "VersionSet", "VersionedTool", "versioned"]

PIN: Final = "dev.genmcp/version"
"""The request ``_meta`` key that pins a version (and, listed, the default one)."""
VERSIONS: Final = "dev.genmcp/versions"
"""The listed ``_meta`` key naming every version, oldest first."""
_PART: Final = re.compile(r"\d+|[^\d.]+")


def version_key(version: str) -> tuple[tuple[int, Any], ...]:
    """Orders versions by their numeric parts (``1.10`` after ``1.9``), text after digits."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in _PART.findall(version))


@dataclass(frozen=True, slots=True)
class _Version:
    version: str
    tool: Tool
    arg: Any

    @property
    def public(self) -> bool:
        """Whether every caller may run it (no scopes, no ``visible`` hook of its own)."""
        hook = type(self.tool).visible is Tool.visible
        return hook and not self.tool.required_scopes(self.arg)

    def visible(self, caller: Caller) -> bool:
        held = caller.assigns.get("effective_scopes")
        if held is not None and not set(self.tool.required_scopes(self.arg)) <= set(held):
            return False
        return self.tool.visible(caller, self.arg)


class VersionSet:
    """The versions of one tool, oldest first (the ``arg`` of a :class:`VersionedTool`)."""

    __slots__ = ("_listed", "name", "versions")

    def __init__(self, name: str, versions: Mapping[str, Any]) -> None:
        if not versions:
            raise ValueError(f"versioned({name!r}): give at least one version")
        made = []
        for version in sorted(versions, key=version_key):
            provider = versions[version]
            cls, arg = provider if isinstance(provider, tuple) else (provider, None)
            if not (isinstance(cls, type) and issubclass(cls, Tool)):
                raise TypeError(f"versioned({name!r}): version {version!r} is not a Tool class")
            made.append(_Version(str(version), cls(), arg))
        self.name = name
        self.versions: tuple[_Version, ...] = tuple(made)
        self._listed: tuple[_Version, ...] | None = None

    @property
    def advertised(self) -> tuple[_Version, ...]:
        """The versions the listing names: a caller's own (:meth:`as_listed`), else the
        public ones (every version when none is)."""
        if self._listed is not None:
            return self._listed
        public = tuple(v for v in self.versions if v.public)
        return public or self.versions

    def as_listed(self, hidden: Collection[str]) -> VersionSet:
        """This set as listed to a caller who may not run the versions ``hidden``: the
        same versions, the listing naming the others."""
        listed = tuple(v for v in self.versions if v.version not in hidden)
        if not listed:
            raise ValueError(f"versioned({self.name!r}): every version is hidden")
        view = object.__new__(VersionSet)
        view.name, view.versions, view._listed = self.name, self.versions, listed
        return view

    @property
    def newest(self) -> _Version:
        """The version the listing describes: the newest advertised one."""
        return self.advertised[-1]

    def names(self) -> list[str]:
        """The advertised versions, oldest first."""
        return [v.version for v in self.advertised]

    def pick(self, caller: Caller, pinned: Any) -> _Version:
        """The version a call runs: the pinned one, else the newest the caller may see."""
        seen = [v for v in self.versions if v.visible(caller)]
        if pinned is None and seen:
            return seen[-1]
        found = next((v for v in seen if v.version == pinned), None)
        if found is None:
            raise MCPError(
                "invalid_params",
                f"Unknown version {pinned!r} of tool {self.name!r}",
                {"name": self.name, "version": pinned, "versions": [v.version for v in seen]},
            )
        return found


class VersionedTool(Tool):
    """One tool name over a :class:`VersionSet` (its ``arg``); made by :func:`versioned`."""

    def info(self, key: str, arg: VersionSet) -> Any:
        if key == "name":
            return arg.name
        newest = arg.newest
        value = newest.tool.info(key, newest.arg)
        if key in ("_meta", "meta"):
            return {**(value or {}), VERSIONS: arg.names(), PIN: newest.version}
        return value

    def input_schema(self, arg: VersionSet) -> Any:
        return arg.newest.tool.input_schema(arg.newest.arg)

    def output_schema(self, arg: VersionSet) -> Any:
        schemas = [v.tool.output_schema(v.arg) for v in arg.versions]
        return schemas[-1] if all(s == schemas[-1] for s in schemas) else None

    def visible(self, caller: Caller, arg: VersionSet) -> bool:
        return any(v.visible(caller) for v in arg.versions)

    def hidden_parts(self, caller: Caller, arg: VersionSet) -> list[str]:
        """The versions ``caller`` may not run (``genmcp.visibility``: listed apart)."""
        return [v.version for v in arg.versions if not v.visible(caller)]

    def validate_request(self, request: ToolRequest, arg: VersionSet) -> ToolRequest:
        return request  # the version is known only with the caller: ``call`` validates

    async def call(self, request: ToolRequest, channel: Channel, arg: VersionSet) -> Any:
        version = arg.pick(caller_of(channel.assigns, request.meta), request.meta.get(PIN))
        tool = version.tool
        request = tool.validate_request(request, version.arg)  # its own schema (or hook)
        if inspect.iscoroutinefunction(tool.call):
            return await tool.call(request, channel, version.arg)
        return await asyncio.to_thread(tool.call, request, channel, version.arg)


def versioned(name: str, versions: Mapping[str, Any]) -> tuple[type[VersionedTool], VersionSet]:
    """The provider of one tool ``name`` served in several ``versions`` (version -> tool
    class or ``(cls, arg)``): give it to ``Suite(tools=...)`` or ``add_tool(..., local=True)``."""
    return (VersionedTool, VersionSet(name, versions))
