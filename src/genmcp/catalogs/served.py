"""What one Suite serves: its four catalogs, built alike, and what is asked of them together.

The tool, prompt, resource and skill catalogs share the sealer, the request states, the page
size and the visibility. Together they give the handlers of their methods (and completion's),
the capabilities they derive (the Suite adds the Tasks extension), the scopes a method's
target declares (auth), the repository a resource URI routes to, and which list changes
reach only the callers who see the list move.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from genmcp.call.job import Handlers
from genmcp.catalogs.apps import served_extensions
from genmcp.catalogs.completion import completion_handlers
from genmcp.catalogs.prompts import PromptCatalog
from genmcp.catalogs.request_state import RequestStates
from genmcp.catalogs.resources import ResourceCatalog
from genmcp.catalogs.skills import SkillCatalog
from genmcp.catalogs.tools import ToolCatalog
from genmcp.protocol.languages import Languages
from genmcp.protocol.methods import (
    PROMPTS_GET,
    PROMPTS_LIST_CHANGED,
    RESOURCES_DIRECTORY_READ,
    RESOURCES_READ,
    SKILLS_GET,
    TOOLS_CALL,
    TOOLS_LIST_CHANGED,
)
from genmcp.sealing import Sealer
from genmcp.transforms.transform import Transform
from genmcp.visibility import Visibility

__all__ = ["Served"]

log = logging.getLogger("genmcp")


class Served:
    """The catalogs of one Suite: ``tools``, ``prompts``, ``resources``, ``skills``."""

    __slots__ = ("_result_meta", "prompts", "resources", "skills", "tools")

    def __init__(
        self,
        *,
        sealer: Sealer,
        states: RequestStates,
        page_size: int,
        visibility: Visibility,
        result_meta: Mapping[str, Any],
        schema_options: Mapping[str, Any] | None,
        transforms: Iterable[Transform] = (),
        languages: Languages | None = None,
        lazy_schemas: bool = False,
    ) -> None:
        shared: dict[str, Any] = {"sealer": sealer, "states": states, "page_size": page_size,
                                  "visibility": visibility, "languages": languages}  # fmt: skip
        # schema_options are merged under each tool's own
        self.tools = ToolCatalog(**shared, result_meta=result_meta, schema_options=schema_options,
                                 transforms=transforms, lazy_schemas=lazy_schemas)  # fmt: skip
        self.prompts = PromptCatalog(**shared, result_meta=result_meta)
        self.resources = ResourceCatalog(**shared, result_meta=result_meta)
        self.skills = SkillCatalog(**shared, result_meta=result_meta, resources=self.resources)
        self._result_meta = result_meta

    def by_kind(self) -> dict[str, Any]:
        """The catalogs by the kind a shared catalog names them (``sync.catalog``)."""
        return {
            "tool": self.tools,
            "prompt": self.prompts,
            "resource": self.resources,
            "skill": self.skills,
        }

    def handlers(self, on_call: Callable[[], None] | None) -> Handlers:
        """The handlers of the four features' methods and of ``completion/complete``
        (``on_call``: run at each ``tools/call``)."""
        return {
            **self.tools.handlers(on_call=on_call),
            **self.prompts.handlers(),
            **self.resources.handlers(),
            **self.skills.handlers(),
            **completion_handlers(self.prompts, self.resources, self._result_meta),
        }

    def capabilities(self, tasks: Mapping[str, Any]) -> dict[str, Any]:
        """ServerCapabilities derived from what is served; ``tasks``: the Tasks service's."""
        capabilities: dict[str, Any] = {}
        if self.tools:
            capabilities["tools"] = {"listChanged": True}
        if self.prompts:
            capabilities["prompts"] = {"listChanged": True}
        if self.resources:
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
        if self.prompts.completes or self.resources.completes:
            capabilities["completions"] = {}
        extensions = {
            **served_extensions(self.resources).get("extensions", {}),
            **tasks.get("extensions", {}),
            **self.skills.extension(),
        }
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    def required_scopes(self, method: str, target: str) -> tuple[str, ...]:
        """The scopes the tool, prompt or resource ``target`` of ``method`` declares (auth)."""
        if method == TOOLS_CALL:
            tool = self.tools.entries.get(target)
            return () if tool is None else tool.required_scopes()
        if method == PROMPTS_GET:
            prompt = self.prompts.entries.get(target)
            return () if prompt is None else prompt.required_scopes()
        if method in (SKILLS_GET, RESOURCES_DIRECTORY_READ):
            return self.skills.required_scopes(target)
        if method == RESOURCES_READ:
            try:
                found = self.resources.route(target)
            except Exception:
                return ()
            return () if found is None else found[0].required_scopes()
        return ()

    @property
    def seen_lists(self) -> Mapping[str, ToolCatalog | PromptCatalog]:
        """The catalogs whose list changes reach only callers who see them move, by
        notification method."""
        return {TOOLS_LIST_CHANGED: self.tools, PROMPTS_LIST_CHANGED: self.prompts}

    def resource_repo(self, uri: str) -> tuple[Any, Any] | None:
        """The repository serving ``uri`` and its ``arg``: ``(repo, arg)``, or None when no
        repository claims it (a static resource, or none)."""
        try:
            found = self.resources.route(uri)
        except Exception:
            log.exception("parse_uri failed for %r", uri)
            return None
        if found is None or found[0].key not in self.resources.repos:
            return None
        return found[0].repo, found[0].arg

    def routes_resource(self, uri: str) -> bool:
        """True when ``uri`` names a resource served (static, or a repo claims it)."""
        try:
            return self.resources.route(uri) is not None
        except Exception:
            log.exception("parse_uri failed for %r", uri)
            return False
