"""``route_tools(app, ...)``: select a FastAPI app's routes and make each one a Tool class.

Owns the selection (operation ids, tags, path patterns, methods; include and exclude), the
refusals at build time (a streaming, file or server-sent-events response, a form body, a
required cookie, a required header without ``headers=True``, a clash of names), and the
class options of each tool: its name from the operation id, its title from the summary,
its description from the docstring (else the summary), its annotations from the method,
its input schema from the parameters and body, its output schema from ``response_model``.

The schemas come from the OpenAPI document FastAPI builds for the app (computed here,
never cached on the app, so ``/openapi.json`` is left as it was).

Imports FastAPI and Starlette.
"""

from __future__ import annotations

import fnmatch
import re
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastapi import FastAPI
from fastapi.datastructures import DefaultPlaceholder
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.responses import FileResponse, StreamingResponse

from genmcp.routes_as_tools.arguments import Arguments, BuildError, output_schema
from genmcp.routes_as_tools.exchange import MAX_RESPONSE_BYTES
from genmcp.routes_as_tools.tool import (
    Credentials,
    RouteSpec,
    RouteTool,
    annotations_for,
    tool_class,
)

__all__ = ["SELECTION", "Selection", "route_tools"]

_TOOL_NAME: Final = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_STREAMING: Final = (StreamingResponse, FileResponse)
_STREAMING_PACKAGES: Final = frozenset({"sse_starlette"})
"""Packages whose responses all stream (sse-starlette's event source: it is not imported
here, the one SSE writer is ``transports.sse``)."""
SELECTION: Final = frozenset(
    {
        "operations",
        "tags",
        "paths",
        "methods",
        "exclude_operations",
        "exclude_tags",
        "exclude_paths",
        "exclude_methods",
        "headers",
        "names",
        "credentials",
        "max_response_bytes",
        "forward_headers",
    }
)
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


def _set(values: Iterable[str] | None, upper: bool = False) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise TypeError(f"give a list of names, not the string {values!r}")
    return frozenset(v.upper() if upper else v for v in values)


def route_tools(
    app: FastAPI,
    *,
    operations: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    paths: Iterable[str] | None = None,
    methods: Iterable[str] | None = None,
    exclude_operations: Iterable[str] = (),
    exclude_tags: Iterable[str] = (),
    exclude_paths: Iterable[str] = (),
    exclude_methods: Iterable[str] = (),
    headers: bool = False,
    names: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
    forward_headers: Iterable[str] = ("authorization",),
) -> list[type[RouteTool]]:
    """Tool classes for the selected routes of ``app``, in route order.

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
            an operation id in ``operations`` matches no route, or two tools share a name.
    """
    selection = Selection(
        _set(operations),
        _set(tags),
        None if paths is None else tuple(paths),
        _set(methods, upper=True),
        _set(exclude_operations) or frozenset(),
        _set(exclude_tags) or frozenset(),
        tuple(exclude_paths),
        _set(exclude_methods, upper=True) or frozenset(),
    )
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
    known: set[str] = set()
    for route, method, operation in _operations(app, document):
        operation_id = str(operation["operationId"])
        known.add(operation_id)
        label = f"route {method} {route.path_format} ({operation_id})"
        if not selection.wants(operation_id, _tags(route), route.path_format, method):
            continue
        name = (names or {}).get(operation_id, operation_id)
        if not _TOOL_NAME.match(name):
            raise BuildError(f"{label}: {name!r} is not a valid tool name; rename it with names=")
        if name in seen:
            raise BuildError(f"{label} and {seen[name]} would both be the tool {name!r}")
        seen[name] = label
        _refuse_streaming(route, label)
        arguments = Arguments.read(operation, components, label=label, headers=headers)
        output, wrapped = (
            output_schema(operation, route.status_code or 200, components)
            if route.response_model is not None
            else (None, False)
        )
        spec = RouteSpec(
            app,
            method,
            route.path,
            arguments,
            output is not None,
            wrapped,
            credentials,
            max_response_bytes,
            forwarded,
        )
        made.append(tool_class(spec, _options(name, operation, method, arguments, output), name))
    missing = (selection.operations or frozenset()) - known
    if missing:
        raise BuildError(f"no selected route has the operation id(s) {sorted(missing)}")
    return made


def _operations(
    app: FastAPI, document: Mapping[str, Any]
) -> Iterator[tuple[APIRoute, str, Mapping[str, Any]]]:
    for route in app.routes:
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        methods = sorted(route.methods or ())
        for method in methods:
            if method == "HEAD" and "GET" in methods:
                continue
            operation = document["paths"].get(route.path_format, {}).get(method.lower())
            if operation is not None:
                yield route, method, operation


def _tags(route: APIRoute) -> set[str]:
    return {str(getattr(tag, "value", tag)) for tag in route.tags or ()}


def _streams(response_class: type) -> bool:
    """Whether a route's response class streams (a tool result carries one whole body)."""
    if issubclass(response_class, _STREAMING):
        return True
    packages = {base.__module__.partition(".")[0] for base in response_class.__mro__}
    return not packages.isdisjoint(_STREAMING_PACKAGES)


def _refuse_streaming(route: APIRoute, label: str) -> None:
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


def _options(
    name: str,
    operation: Mapping[str, Any],
    method: str,
    arguments: Arguments,
    output: dict[str, Any] | None,
) -> dict[str, Any]:
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
