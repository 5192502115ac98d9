"""An external API's OpenAPI document: read it, resolve its references, list its operations.

Owns turning what ``openapi_tools`` is given (a dict, a JSON or YAML file, or an ``http(s)``
URL fetched once at build time) into the document, the base URL its operations answer
under (``base_url=``, else the first ``servers`` entry with its variables' defaults, made
absolute against the URL the document came from), and each operation with its path-level
parameters merged in and its ``#/components/...`` references to parameters, request bodies
and responses resolved. Schema references (``#/components/schemas/X``) are left to
``routes_as_tools.arguments``, which inlines them into each tool's schema.

Imports httpx (for a URL only) and PyYAML (for a YAML file only), lazily.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from genmcp.routes_as_tools.arguments import BuildError

__all__ = ["Document", "Operation", "json_schema", "load"]

_METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_VARIABLE: Final = re.compile(r"\{([^}]+)\}")
_OPENAPI_ONLY: Final = frozenset({"xml", "externalDocs", "discriminator", "example"})
"""Schema Object fields of OpenAPI that are no JSON Schema keywords (dropped)."""
_NAMED: Final = frozenset({"properties", "patternProperties", "$defs", "definitions"})
"""Keywords whose value maps names (not keywords) to schemas."""
_MAX_DEPTH: Final = 32
"""How many references in a row one lookup follows (a cycle of references is refused)."""


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the document, its parameters merged and resolved."""

    path: str
    method: str
    """Upper case: ``GET``."""
    operation: dict[str, Any]
    """The operation object, ``parameters`` and ``requestBody`` resolved (a copy)."""

    @property
    def operation_id(self) -> str:
        """The ``operationId``, else a name made of the method and path (``get_pets_id``)."""
        given = self.operation.get("operationId")
        if isinstance(given, str) and given:
            return given
        words = re.sub(r"[^A-Za-z0-9]+", "_", self.path).strip("_")
        return f"{self.method.lower()}_{words}" if words else self.method.lower()

    @property
    def tags(self) -> set[str]:
        """The operation's tags."""
        return {str(tag) for tag in self.operation.get("tags", ())}


@dataclass(frozen=True, slots=True)
class Document:
    """A loaded OpenAPI document and where it came from."""

    content: dict[str, Any]
    source: str | None = None
    """The URL or file it was read from (None for a dict)."""

    @property
    def schemas(self) -> Mapping[str, Any]:
        """``components.schemas``: what schema references point at."""
        found = self.content.get("components", {}).get("schemas", {})
        return json_schema(found, named=True) if isinstance(found, Mapping) else {}

    @property
    def title(self) -> str:
        """``info.title`` (for messages)."""
        return str(self.content.get("info", {}).get("title", "the API"))

    def base_url(self, given: str | None) -> str:
        """Where the operations answer: ``given``, else the first server's URL."""
        if given:
            return given.rstrip("/")
        servers = self.content.get("servers") or []
        server = servers[0] if servers and isinstance(servers[0], Mapping) else None
        if server is None or not isinstance(server.get("url"), str):
            raise BuildError(f"{self.title} names no server: pass base_url=")
        variables = server.get("variables") or {}

        def default(match: re.Match[str]) -> str:
            return str((variables.get(match.group(1)) or {}).get("default", ""))

        url = _VARIABLE.sub(default, server["url"])
        if not urllib.parse.urlsplit(url).scheme:
            if self.source is None or not self.source.startswith(("http://", "https://")):
                raise BuildError(f"{self.title}'s server URL {url!r} is relative: pass base_url=")
            url = urllib.parse.urljoin(self.source, url)
        return url.rstrip("/")

    def resolve(self, node: Any, depth: int = 0) -> Any:
        """``node`` itself, or what its ``#/...`` ``$ref`` points at (followed)."""
        if not isinstance(node, Mapping) or "$ref" not in node:
            return node
        ref = node["$ref"]
        if depth > _MAX_DEPTH or not isinstance(ref, str) or not ref.startswith("#/"):
            raise BuildError(f"{self.title}: the reference {ref!r} cannot be followed")
        target: Any = self.content
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, Mapping) or part not in target:
                raise BuildError(f"{self.title}: the reference {ref!r} points at nothing")
            target = target[part]
        return self.resolve(target, depth + 1)

    def operations(self) -> Iterator[Operation]:
        """Each operation, in the document's order."""
        for path, item in (self.content.get("paths") or {}).items():
            item = self.resolve(item)
            if not isinstance(item, Mapping):
                continue
            shared = [self.resolve(p) for p in item.get("parameters", ())]
            for method in _METHODS:
                operation = item.get(method)
                if not isinstance(operation, Mapping):
                    continue
                own = [self.resolve(p) for p in operation.get("parameters", ())]
                named = {(p.get("name"), p.get("in")) for p in own}
                merged = [p for p in shared if (p.get("name"), p.get("in")) not in named] + own
                resolved = {**operation, "parameters": [_cleaned(p) for p in merged]}
                if "requestBody" in operation:
                    resolved["requestBody"] = _cleaned(self.resolve(operation["requestBody"]))
                responses = operation.get("responses") or {}
                resolved["responses"] = {
                    code: _cleaned(self.resolve(r)) for code, r in responses.items()
                }
                yield Operation(str(path), method.upper(), resolved)


def json_schema(node: Any, *, named: bool = False) -> Any:
    """An OpenAPI Schema Object as JSON Schema: OpenAPI-only fields dropped, 3.0's
    ``nullable: true`` as a type that admits ``null``. ``named``: ``node`` maps names to
    schemas (``properties``), whose keys are kept whatever they are."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    if named:
        return {key: json_schema(value) for key, value in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _OPENAPI_ONLY or key == "nullable":
            continue
        out[key] = json_schema(value, named=key in _NAMED)
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list) and "null" not in kind:
            out["type"] = [*kind, "null"]
    return out


def _cleaned(holder: Any) -> Any:
    """A parameter, request body or response with its schemas as JSON Schema."""
    if not isinstance(holder, Mapping):
        return holder
    out = dict(holder)
    if "schema" in out:
        out["schema"] = json_schema(out["schema"])
    content = out.get("content")
    if isinstance(content, Mapping):
        out["content"] = {
            media: {**body, "schema": json_schema(body["schema"])}
            if isinstance(body, Mapping) and "schema" in body
            else body
            for media, body in content.items()
        }
    return out


def load(spec: Mapping[str, Any] | str | Path) -> Document:
    """The document ``spec`` gives: a dict, a file path (JSON or YAML), or an http(s) URL."""
    if isinstance(spec, Mapping):
        return _checked(dict(spec), None)
    text = str(spec)
    if text.startswith(("http://", "https://")):
        import httpx

        try:
            response = httpx.get(text, timeout=30.0, follow_redirects=True)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise BuildError(f"cannot fetch the OpenAPI document {text}: {exc}") from None
        return _checked(_parse(response.text, text), text)
    path = Path(text)
    try:
        body = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BuildError(f"cannot read the OpenAPI document {text}: {exc}") from None
    return _checked(_parse(body, text), text)


def _parse(body: str, where: str) -> Any:
    """JSON, else YAML (a JSON document is YAML too, but JSON reads faster)."""
    try:
        return json.loads(body)
    except ValueError:
        pass
    import yaml

    try:
        return yaml.safe_load(body)
    except yaml.YAMLError as exc:
        raise BuildError(f"{where} is neither JSON nor YAML: {exc}") from None


def _checked(content: Any, source: str | None) -> Document:
    if not isinstance(content, dict) or not isinstance(content.get("paths"), Mapping):
        raise BuildError(f"{source or 'the given dict'} is not an OpenAPI document (no paths)")
    version = str(content.get("openapi", ""))
    if not version.startswith("3."):
        raise BuildError(
            f"{source or 'the given dict'} is OpenAPI {version or 'of no version'}: "
            "only OpenAPI 3.0 and 3.1 documents are read"
        )
    return Document(content, source)
