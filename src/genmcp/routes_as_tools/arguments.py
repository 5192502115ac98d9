"""Tool arguments <-> one HTTP operation: the input schema, the placement, the way back.

Owns reading one OpenAPI operation (the dict FastAPI generates for a route) into
:class:`Arguments`: the self-contained input JSON Schema of the tool (path, query, opted-in
header parameters and the JSON body, ``$ref``s inlined), where each argument goes in the
HTTP request (:meth:`Arguments.place`), and the way back from a FastAPI 422 ``loc`` to the
argument it names (:meth:`Arguments.name_of`). Also the output schema of a ``response_model``.

A required body whose schema is an object with properties is *flattened*: its properties
are top-level arguments (what a model finds easiest to fill). Any other body (optional, a
list, a bare value, or one whose property names clash with a parameter) is the one
argument ``body``.

Pure: no asyncio, no web framework; imports only genmcp's schema layer.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from genmcp.schema.refs import inline_refs

__all__ = ["BODY", "Arguments", "BuildError", "Placed", "output_schema", "self_contained"]

BODY: Final = "body"
"""The argument that carries a body which is not flattened."""

_OPENAPI_REF: Final = "#/components/schemas/"
_CARRIED: Final = frozenset({"authorization", "cookie", "host", "content-type", "content-length"})
"""Header names never exposed as arguments: the credentials and the framing are ours to set."""


class BuildError(ValueError):
    """Raised when a selected route cannot become a tool; the message names the route."""


@dataclass(frozen=True, slots=True)
class Placed:
    """The HTTP parts one call's arguments become."""

    path_values: dict[str, str]
    query: list[tuple[str, str]]
    headers: list[tuple[str, str]]
    body: Any = None
    has_body: bool = False

    @property
    def query_string(self) -> bytes:
        """The urlencoded query string."""
        return urllib.parse.urlencode(self.query).encode("ascii")


@dataclass(slots=True)
class Arguments:
    """How one operation's parameters and body map to tool arguments."""

    schema: dict[str, Any]
    where: dict[str, str] = field(default_factory=dict)
    """argument name -> ``path`` | ``query`` | ``header`` | ``body`` (a flattened property)."""
    body: str | None = None
    """None: no body; ``"flat"``: its properties are arguments; ``"nested"``: under ``body``."""

    @classmethod
    def read(
        cls,
        operation: Mapping[str, Any],
        components: Mapping[str, Any],
        *,
        label: str,
        headers: bool = False,
    ) -> Arguments:
        """Read ``operation`` (with the app's ``components.schemas``) into arguments."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        found = cls(schema={})
        for parameter in operation.get("parameters", ()):
            name, where = parameter["name"], parameter["in"]
            if where == "header" and (not headers or name.lower() in _CARRIED):
                if parameter.get("required") and name.lower() not in _CARRIED:
                    raise BuildError(f"{label} requires the header {name!r}: pass headers=True")
                continue
            if where == "cookie":
                if parameter.get("required"):
                    raise BuildError(f"{label} requires the cookie {name!r}: cookies are not sent")
                continue
            if name in properties:
                raise BuildError(f"{label}: two parameters are named {name!r}")
            schema = dict(self_contained(parameter.get("schema", {}), components))
            if parameter.get("description") and "description" not in schema:
                schema["description"] = parameter["description"]
            properties[name] = schema
            found.where[name] = where
            if parameter.get("required"):
                required.append(name)
        found._read_body(operation, components, properties, required, label)
        found.schema = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            found.schema["required"] = required
        return found

    def _read_body(
        self,
        operation: Mapping[str, Any],
        components: Mapping[str, Any],
        properties: dict[str, Any],
        required: list[str],
        label: str,
    ) -> None:
        request_body = operation.get("requestBody")
        if request_body is None:
            return
        content = request_body.get("content", {})
        if "application/json" not in content:
            kinds = ", ".join(sorted(content)) or "no media type"
            raise BuildError(f"{label} takes a {kinds} body; only JSON bodies become arguments")
        schema = self_contained(content["application/json"].get("schema", {}), components)
        body_required = bool(request_body.get("required"))
        inner = schema.get("properties")
        flat = (
            body_required
            and schema.get("type") == "object"
            and isinstance(inner, dict)
            and bool(inner)
            and not set(inner) & set(properties)
        )
        if flat:
            assert isinstance(inner, dict)
            self.body = "flat"
            for name, sub in inner.items():
                properties[name] = sub
                self.where[name] = BODY
            required.extend(schema.get("required", ()))
            return
        if BODY in properties:
            raise BuildError(f"{label}: a parameter named {BODY!r} clashes with the body")
        self.body = "nested"
        properties[BODY] = schema
        self.where[BODY] = BODY
        if body_required:
            required.append(BODY)

    def place(self, arguments: Mapping[str, Any]) -> Placed:
        """Split validated ``arguments`` into path values, query, headers and body."""
        path_values: dict[str, str] = {}
        query: list[tuple[str, str]] = []
        headers: list[tuple[str, str]] = []
        flat: dict[str, Any] = {}
        body, has_body = None, self.body == "flat"
        for name, value in arguments.items():
            where = self.where.get(name)
            if where == "path":
                path_values[name] = _scalar(value)
            elif where == "query":
                query.extend((name, _scalar(item)) for item in _items(value))
            elif where == "header":
                headers.extend((name, _scalar(item)) for item in _items(value))
            elif where == BODY and self.body == "flat":
                flat[name] = value
            elif where == BODY:
                body, has_body = value, True
        return Placed(path_values, query, headers, flat if self.body == "flat" else body, has_body)

    def name_of(self, loc: Iterable[Any]) -> str:
        """The argument a FastAPI validation ``loc`` names, as a dotted path."""
        parts = [str(part) for part in loc]
        if parts[:1] == [BODY]:
            parts = parts[1:] if self.body == "flat" and len(parts) > 1 else parts
        elif parts[:1] and parts[0] in ("path", "query", "header", "cookie"):
            parts = parts[1:]
        return ".".join(parts) or BODY


def _items(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def self_contained(schema: Mapping[str, Any], components: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``#/components/schemas/X`` references inlined."""
    defs = {name: _rebased(sub) for name, sub in components.items()}
    wrapper = inline_refs({"$defs": defs, "properties": {"root": _rebased(schema)}})
    inlined: dict[str, Any] = wrapper["properties"]["root"]
    if wrapper.get("$defs"):  # recursive models keep their references, resolved at the root
        inlined["$defs"] = wrapper["$defs"]
    return inlined


def _rebased(node: Any) -> Any:
    """OpenAPI component references rewritten as local ``#/$defs/X`` ones."""
    if isinstance(node, list):
        return [_rebased(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _rebased(value) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_OPENAPI_REF):
        out["$ref"] = "#/$defs/" + ref.removeprefix(_OPENAPI_REF)
    return out


def output_schema(
    operation: Mapping[str, Any], status: int, components: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, bool]:
    """The output schema of a ``response_model`` and whether results are wrapped.

    MCP structured content is an object; any other schema (a list, a union with null) is
    wrapped as ``{"result": ...}``.
    """
    responses = operation.get("responses", {})
    response = responses.get(str(status)) or responses.get("200") or {}
    media = response.get("content", {}).get("application/json")
    if media is None or "schema" not in media:
        return None, False
    schema = self_contained(media["schema"], components)
    if schema.get("type") == "object" and "anyOf" not in schema:
        return schema, False
    defs = schema.pop("$defs", None)  # hoisted: "#/$defs/X" resolves at the root only
    wrapped = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if defs:
        wrapped["$defs"] = defs
    return wrapped, True
