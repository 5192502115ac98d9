"""``OpenAPI``: an imported API served by a Suite, its pool closed with the Suite.

``Suite(mounts=[OpenAPI("https://api.example.com/openapi.json", namespace="shop")])``
serves the selected operations (``openapi_tools``) as tools, named ``shop_<operationId>``
with a namespace, and closes the upstream's connection pool when the Suite closes. The
tools are served in this process only (generated classes cannot travel between processes:
every process imports the document itself, as configuration).

Imports this package and ``compose.mount`` (the namespace rule and renaming).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genmcp.compose.mount import NAMESPACE, renamed
from genmcp.openapi.build import openapi_tools
from genmcp.openapi.tool import OpenAPITool
from genmcp.openapi.upstream import HTTPUpstream

if TYPE_CHECKING:
    from genmcp.suite import Suite

__all__ = ["OpenAPI"]


class OpenAPI:
    """An external API's operations as tools of the Suite that mounts it.

    Args:
        spec: the OpenAPI 3.x document: a dict, a JSON or YAML file, or an http(s) URL.
        namespace: the prefix of the tool names, joined with ``_`` (None: the names as
            they are).
        options: what :func:`openapi_tools` takes (selection, auth, timeouts, breaker).
    """

    __slots__ = ("namespace", "prefix", "tools", "upstream")

    def __init__(
        self,
        spec: Mapping[str, Any] | str | Path,
        *,
        namespace: str | None = None,
        **options: Any,
    ) -> None:
        if namespace and NAMESPACE.fullmatch(namespace) is None:
            raise ValueError(
                f"OpenAPI(namespace={namespace!r}): a namespace is 1 to 64 of A-Z a-z 0-9 _ - . "
                "and starts with a letter or digit"
            )
        self.namespace = namespace or None
        self.prefix = f"{namespace}_" if namespace else ""
        self.tools: list[type[OpenAPITool]] = openapi_tools(spec, **options)
        self.upstream: HTTPUpstream | None = (
            self.tools[0].operation.upstream if self.tools else None
        )

    def __repr__(self) -> str:
        where = None if self.upstream is None else self.upstream.base_url
        return f"OpenAPI({where!r}, namespace={self.namespace!r}, tools={len(self.tools)})"

    def attach(self, outer: Suite) -> None:
        """Serve the tools in ``outer`` (this process only)."""
        for tool in self.tools:
            try:
                outer.add_tool(renamed(tool, self.prefix), local=True)
            except ValueError as exc:
                raise ValueError(f"{self!r} collides with what the Suite serves: {exc}") from exc

    async def start(self, outer: Suite) -> None:
        """Nothing to list: the document was read when built."""

    async def aclose(self) -> None:
        """Close the upstream's connection pool (of the running loop)."""
        if self.upstream is not None:
            await self.upstream.aclose()
