"""``route_tools(app, ...)``: select a FastAPI app's routes and make each one a Tool class.

Owns the selection (operation ids, tags, path patterns, methods; include and exclude), the
refusals at build time (a streaming, file or server-sent-events response, a form body, a
required cookie, a required header without ``headers=True``, a clash of names), and the
class options of each tool: its name from the operation id, its title from the summary,
its description from the docstring (else the summary), its annotations from the method,
its input schema from the parameters and body, its output schema from ``response_model``.

The operations come from the OpenAPI document FastAPI builds for the app (computed here,
never cached on the app, so ``/openapi.json`` is left as it was), included routers and all:
each tool's path, method, operation id, tags and schemas are those ``app.openapi()`` shows
(``table`` reads the document, the served routes and the mounts). A call goes through the
app itself, so an include's dependencies run as for an HTTP client.

Imports FastAPI and Starlette.
"""

from __future__ import annotations

import fnmatch
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypedDict, Unpack

from fastapi import FastAPI
from fastapi.datastructures import DefaultPlaceholder
from fastapi.openapi.utils import get_openapi
from starlette.responses import FileResponse, StreamingResponse

from genmcp.catalogs.tool_entry import TOOL_NAME
from genmcp.protocol.shapes import check_keywords
from genmcp.routes_as_tools import table
from genmcp.routes_as_tools.arguments import Arguments, BuildError, output_schema
from genmcp.routes_as_tools.exchange import MAX_RESPONSE_BYTES
from genmcp.routes_as_tools.tool import (
    Credentials,
    RouteSpec,
    RouteTool,
    annotations_for,
    tool_class,
)

__all__ = [
    "SELECTION",
    "Selection",
    "SelectionKeywords",
    "route_tools",
    "tool_name",
    "tool_options",
]

_STREAMING: Final = (StreamingResponse, FileResponse)
_STREAMING_PACKAGES: Final = frozenset({"sse_starlette"})
"""Packages whose responses all stream (sse-starlette's event source: it is not imported
here, the one SSE writer is ``transports.http.sse``)."""
_STREAMING_MEDIA: Final = frozenset(
    {"text/event-stream", "application/jsonl", "application/x-ndjson"}
)
"""Media types of a documented success response that streams. Read when only the document
describes a route, with a success response naming no media type at all: the response class
of a stream or a file has none (a bare ``Response`` neither, and is refused with them)."""
_EMPTY: Final = frozenset({204, 205, 304})
"""Statuses whose response has no body (and no media type in the document)."""


class SelectionKeywords(TypedDict, total=False):
    """The keywords that pick operations, which :func:`route_tools` and ``openapi_tools``
    both take (``**selection: Unpack[SelectionKeywords]``) and :meth:`Selection.of` reads:
    include ``operations``, ``tags``, ``paths``, ``methods`` (None: all), drop the
    ``exclude_`` forms; ``headers`` and ``names`` shape the tools of what is picked."""

    operations: Iterable[str] | None
    tags: Iterable[str] | None
    paths: Iterable[str] | None
    methods: Iterable[str] | None
    exclude_operations: Iterable[str]
    exclude_tags: Iterable[str]
    exclude_paths: Iterable[str]
    exclude_methods: Iterable[str]
    headers: bool
    names: Mapping[str, str] | None


SELECTION: Final = SelectionKeywords.__optional_keys__ | {
    "credentials",
    "max_response_bytes",
    "forward_headers",
}
"""The keyword arguments of :func:`route_tools` (``routes_router`` passes them on)."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Which operations become tools: every include kind given must match, no exclude may."""

    operations: frozenset[str] | None = None
    tags: frozenset[str] | None = None
    paths: tuple[str, ...] | None = None
    methods: frozenset[str] | None = None
    exclude_operations: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    exclude_paths: tuple[str, ...] = ()
    exclude_methods: frozenset[str] = frozenset()

    def wants(self, operation_id: str, tags: set[str], path: str, method: str) -> bool:
        """True when the operation is included and not excluded."""
        included = (
            (self.operations is None or operation_id in self.operations)
            and (self.tags is None or bool(tags & self.tags))
            and (self.paths is None or any(fnmatch.fnmatchcase(path, p) for p in self.paths))
            and (self.methods is None or method in self.methods)
        )
        excluded = (
            operation_id in self.exclude_operations
            or bool(tags & self.exclude_tags)
            or any(fnmatch.fnmatchcase(path, p) for p in self.exclude_paths)
            or method in self.exclude_methods
        )
        return included and not excluded

    @classmethod
    def of(cls, keywords: SelectionKeywords, where: str) -> Selection:
        """The selection ``keywords`` describe (methods upper-cased); a bare string, or a
        keyword ``where`` (``route_tools``, ``openapi_tools``) does not take, is refused
        with ``TypeError``, as Python refuses one a signature does not name."""
        check_keywords(keywords, SelectionKeywords.__optional_keys__, where)
        paths, exclude_paths = keywords.get("paths"), keywords.get("exclude_paths", ())
        return cls(
            _set(keywords.get("operations")),
            _set(keywords.get("tags")),
            None if paths is None else tuple(paths),
            _set(keywords.get("methods"), upper=True),
            _set(keywords.get("exclude_operations", ())) or frozenset(),
            _set(keywords.get("exclude_tags", ())) or frozenset(),
            tuple(exclude_paths),
            _set(keywords.get("exclude_methods", ()), upper=True) or frozenset(),
        )


def _set(values: Iterable[str] | None, upper: bool = False) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError(f"give a list of names, not the string {values!r}")
    return frozenset(v.upper() if upper else v for v in values)


def tool_name(
    operation_id: str, names: Mapping[str, str] | None, label: str, seen: Mapping[str, str]
) -> str:
    """The tool name of an operation (``names=`` renames), refused with ``BuildError`` when
    it is no valid tool name or ``seen`` (tool name -> label) already has it."""
    name = (names or {}).get(operation_id, operation_id)
    if not TOOL_NAME.fullmatch(name):
        raise BuildError(f"{label}: {name!r} is not a valid tool name; rename it with names=")
    if name in seen:
        raise BuildError(f"{label} and {seen[name]} would both be the tool {name!r}")
    return name


def route_tools(
    app: FastAPI,
    *,
    credentials: Credentials | None = None,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
    forward_headers: Iterable[str] = ("authorization",),
    **selection: Unpack[SelectionKeywords],
) -> list[type[RouteTool]]:
    """Tool classes for the selected routes of ``app``, in the order of its OpenAPI document.

    Every route the app serves is a candidate, included routers too (with the include's
    prefix, tags and dependencies, as ``app.openapi()`` describes them); the routes of a
    mounted app (``app.mount``) are not: call ``route_tools`` on that app.

    Args:
        app: the FastAPI app whose routes the tools call (in-process, through ASGI).
        operations: operation ids to include (None: every operation).
        tags: include operations carrying one of these tags.
        paths: include operations whose path template matches one of these
            ``fnmatch`` patterns (``"/items/*"``).
        methods: include operations with one of these HTTP methods.
        exclude_operations: operation ids to drop.
        exclude_tags: drop operations carrying one of these tags.
        exclude_paths: drop operations whose path template matches one of these patterns.
        exclude_methods: drop operations with one of these HTTP methods.
        headers: expose header parameters as arguments (credentials never are).
        names: operation id -> tool name, for ids that make poor tool names.
        credentials: ``assigns -> headers`` for calls no MCP HTTP request forwarded
            credentials for (``genmcp.testing``, stdio, or routes that trust a principal).
        max_response_bytes: a larger response is an ``isError`` result (502).
        forward_headers: the MCP request's headers each route call carries (whatever
            router serves the tools, both eras).

    Raises:
        BuildError: a selected route cannot be a tool (the message names it and says why),
            an operation id in ``operations`` matches no route (the message lists the
            app's ids and the closest one), a selection names only routes of a mounted app,
            or two tools share a name.
    """
    picked = Selection.of(selection, "route_tools")
    headers, names = selection.get("headers", False), selection.get("names")
    document = get_openapi(
        title=app.title,
        version=app.version,
        openapi_version=app.openapi_version,
        routes=app.routes,
        separate_input_output_schemas=app.separate_input_output_schemas,
    )
    components = document.get("components", {}).get("schemas", {})
    if isinstance(forward_headers, str):
        raise TypeError(f"give a list of header names, not the string {forward_headers!r}")
    forwarded = tuple(name.lower() for name in forward_headers)
    made: list[type[RouteTool]] = []
    seen: dict[str, str] = {}
    served, mounts = table.served(app)
    found: dict[str, str] = {}
    for path, method, operation in table.operations(document):
        operation_id = str(operation["operationId"])
        found.setdefault(operation_id, path)
        label = f"route {method} {path} ({operation_id})"
        if not picked.wants(operation_id, _tags(operation), path, method):
            continue
        name = tool_name(operation_id, names, label, seen)
        seen[name] = label
        route = served.get((path, method))
        template, status, modelled = _served_as(route, operation, path, label)
        arguments = Arguments.read(operation, components, label=label, headers=headers)
        output, wrapped = (
            output_schema(operation, status, components) if modelled else (None, False)
        )
        spec = RouteSpec(
            app,
            method,
            template,
            arguments,
            output is not None,
            wrapped,
            credentials,
            max_response_bytes,
            forwarded,
        )
        options = tool_options(name, operation, method, arguments, output)
        made.append(tool_class(spec, options, name))
    table.check_found(picked.operations, picked.paths, found, mounts)
    return made


def _served_as(
    route: Any, operation: Mapping[str, Any], path: str, label: str
) -> tuple[str, int, bool]:
    """The path template with convertors, the success status, and whether a response model
    is declared: from the served route, else (a route ``compat.served_routes`` could not
    reach) from the document alone, where a path convertor reads as a plain parameter."""
    if route is not None:
        _refuse_streaming(route, label)
        return str(route.path), int(route.status_code or 200), route.response_model is not None
    responses = operation.get("responses", {})
    status = min((int(code) for code in responses if str(code)[:1] == "2"), default=200)
    content = responses.get(str(status), {}).get("content", {})
    if not content.keys().isdisjoint(_STREAMING_MEDIA) or (not content and status not in _EMPTY):
        raise BuildError(
            f"{label} may answer with a stream or a file (its document names no JSON or text "
            "response), which a tool result cannot carry; leave it out with exclude_operations="
        )
    modelled = bool(content.get("application/json", {}).get("schema"))
    return path, status, modelled


def _tags(operation: Mapping[str, Any]) -> set[str]:
    return {str(tag) for tag in operation.get("tags", ())}


def _streams(response_class: type) -> bool:
    """Whether a route's response class streams (a tool result carries one whole body)."""
    if issubclass(response_class, _STREAMING):
        return True
    packages = {base.__module__.partition(".")[0] for base in response_class.__mro__}
    return not packages.isdisjoint(_STREAMING_PACKAGES)


def _refuse_streaming(route: Any, label: str) -> None:
    response_class = route.response_class
    if isinstance(response_class, DefaultPlaceholder):
        response_class = response_class.value
    try:
        returned = typing.get_type_hints(route.endpoint).get("return")
    except Exception:  # an annotation that does not resolve says nothing about streaming
        returned = None
    for candidate in (response_class, returned):
        if isinstance(candidate, type) and _streams(candidate):
            raise BuildError(
                f"{label} answers with a {candidate.__name__}, which a tool result cannot "
                "carry; leave it out with exclude_operations="
            )


def tool_options(
    name: str,
    operation: Mapping[str, Any],
    method: str,
    arguments: Arguments,
    output: dict[str, Any] | None,
) -> dict[str, Any]:
    """A tool class's options from its OpenAPI operation: title from the summary,
    description (else the summary), annotations from the method, input and output schema."""
    summary = operation.get("summary")
    description = operation.get("description") or summary or f"{method} {name}"
    options: dict[str, Any] = {
        "name": name,
        "description": description,
        "annotations": annotations_for(method),
        "input_schema": arguments.schema,
    }
    if summary:
        options["title"] = summary
    if output is not None:
        options["output_schema"] = output
    return options
