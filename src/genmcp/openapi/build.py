"""``openapi_tools(spec, ...)``: select an external API's operations and make each one a Tool.

The twin of ``route_tools(app, ...)``, with the same selection keywords (``operations``,
``tags``, ``paths``, ``methods`` and their ``exclude_`` forms; every include kind given must
match, no exclude may), the same naming (the ``operationId``, ``names=`` to rename) and
the same class options (title from the summary, description, annotations from the method,
input schema from the parameters and the JSON body with ``$ref``s inlined, output schema
from the documented JSON success response). One :class:`HTTPUpstream` serves them all.

An operation no tool can carry (a form or file body, a required cookie, a required header
without ``headers=True``) is refused with ``BuildError`` when ``operations=`` names it, and
otherwise left out with a warning naming it: a public API rarely fits whole.

Imports this package and genmcp's routes-as-tools argument reader, selection and naming.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from genmcp.openapi.document import Document, Operation, load
from genmcp.openapi.tool import OpenAPITool, OperationSpec, tool_class
from genmcp.openapi.upstream import Credentials, HTTPUpstream
from genmcp.routes_as_tools.arguments import Arguments, BuildError, output_schema
from genmcp.routes_as_tools.build import Selection, SelectionKeywords, tool_name, tool_options

if TYPE_CHECKING:
    import httpx

__all__ = ["openapi_tools"]

log = logging.getLogger("genmcp")


def openapi_tools(
    spec: Mapping[str, Any] | str | Path,
    *,
    base_url: str | None = None,
    credentials: Credentials | None = None,
    forward_bearer: bool = False,
    timeout_s: float = 10.0,
    failures: int = 3,
    cooldown_s: float = 30.0,
    max_response_bytes: int = 4 * 1024 * 1024,
    http: httpx.AsyncClient | None = None,
    upstream: HTTPUpstream | None = None,
    **selection: Unpack[SelectionKeywords],
) -> list[type[OpenAPITool]]:
    """Tool classes for the selected operations of an external API, in the document's order.

    Args:
        spec: the OpenAPI 3.x document: a dict, a JSON or YAML file, or an http(s) URL.
        base_url: where the API answers (default: the document's first server).
        operations, tags, paths, methods: include only these (as ``route_tools``).
        exclude_operations, exclude_tags, exclude_paths, exclude_methods: drop these.
        headers: expose header parameters as arguments (credentials never are).
        names: operation id -> tool name.
        credentials: headers the server sends the API, or ``caller -> headers``.
        forward_bearer: pass the MCP caller's ``Authorization: Bearer`` on (never by default).
        timeout_s, failures, cooldown_s: the pool's timeouts and the circuit breaker.
        max_response_bytes: a larger response is an ``isError`` result (502).
        http: an ``httpx.AsyncClient`` to send through instead of the upstream's own pool
            (shared with your code, or an ``httpx.ASGITransport`` in tests; not closed here).
        upstream: an :class:`HTTPUpstream` to share (then the five options above are its).

    Raises:
        BuildError: the document cannot be read, names no server and no ``base_url``,
            ``operations`` names an id it lacks or one no tool can carry, or two tools
            would share a name.
    """
    document = load(spec)
    picked = Selection.of(selection, "openapi_tools")
    headers, names = selection.get("headers", False), selection.get("names")
    if upstream is None:
        upstream = HTTPUpstream(
            document.base_url(base_url), timeout_s, failures, cooldown_s, credentials,
            forward_bearer, max_response_bytes, http,
        )  # fmt: skip
    made: list[type[OpenAPITool]] = []
    seen: dict[str, str] = {}
    found: set[str] = set()
    for operation in document.operations():
        operation_id = operation.operation_id
        found.add(operation_id)
        label = f"operation {operation.method} {operation.path} ({operation_id})"
        if not picked.wants(operation_id, operation.tags, operation.path, operation.method):
            continue
        name = tool_name(operation_id, names, label, seen)
        try:
            made.append(_tool(document, operation, upstream, name, label, headers))
        except BuildError as exc:
            if picked.operations is not None:
                raise
            log.warning("openapi_tools: %s is left out: %s", label, exc)
            continue
        seen[name] = label
    missing = sorted((picked.operations or frozenset()) - found)
    if missing:
        listed = ", ".join(sorted(found)[:20]) or "none"
        raise BuildError(f"{document.title} has no operation {missing}; its ids: {listed}")
    return made


def _tool(
    document: Document,
    operation: Operation,
    upstream: HTTPUpstream,
    name: str,
    label: str,
    headers: bool,
) -> type[OpenAPITool]:
    content = operation.operation
    components = document.schemas
    arguments = Arguments.read(content, components, label=label, headers=headers)
    responses = content.get("responses", {})
    status = min((int(code) for code in responses if str(code)[:1] == "2"), default=200)
    output, wrapped = output_schema(content, status, components)
    spec = OperationSpec(
        upstream,
        operation.method,
        operation.path,
        operation.operation_id,
        arguments,
        output is not None,
        wrapped,
    )
    options = tool_options(name, content, operation.method, arguments, output)
    return tool_class(spec, options, name)
