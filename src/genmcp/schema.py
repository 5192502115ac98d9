"""Tool schemas: compile once, advertise as self-contained JSON Schema, validate arguments.

A schema is a JSON Schema dict (validated with ``jsonschema``, format checks
on, 2020-12 unless ``$schema`` says otherwise, advertised verbatim) or a
pydantic model class (advertised with its ``$ref``s inlined; arguments are
cast into a model instance). Validation failures become ``InvalidArguments``
with pydantic-core style entries (``type``, ``loc``, ``msg``).

Imports no asyncio and no web framework.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from pydantic import BaseModel, ValidationError

__all__ = ["ArgumentValidator", "InvalidArguments", "SchemaLike", "compile_schema"]

SchemaLike = Mapping[str, Any] | type[BaseModel]
MAX_REPORTED_ERRORS = 10


class InvalidArguments(Exception):
    """Raised when tool arguments fail validation; the client gets an ``isError`` result.

    Attributes:
        errors: entries ``{"type", "loc", "msg"}``; ``loc`` is the path to the argument.
    """

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line per failing argument: ``location: message``."""
        lines = []
        for error in self.errors:
            where = ".".join(str(part) for part in error["loc"]) or "arguments"
            lines.append(f"{where}: {error['msg']}")
        return "; ".join(lines)


class ArgumentValidator:
    """A compiled schema: ``advertised`` for listings, ``validate`` for calls."""

    def __init__(self, advertised: dict[str, Any]) -> None:
        self.advertised = advertised

    def validate(self, arguments: Any) -> Any:
        """Return the arguments to call with, or raise ``InvalidArguments``."""
        raise NotImplementedError  # pragma: no cover - abstract


class _DictValidator(ArgumentValidator):
    def __init__(self, schema: Mapping[str, Any]) -> None:
        super().__init__(dict(schema))
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        self._validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def validate(self, arguments: Any) -> Any:
        found = sorted(self._validator.iter_errors(arguments), key=_error_order)
        if not found:
            return arguments
        raise InvalidArguments([_entry(error) for error in found[:MAX_REPORTED_ERRORS]])


def _error_order(error: jsonschema.exceptions.ValidationError) -> tuple[str, ...]:
    return tuple(str(part) for part in error.absolute_path)


def _entry(error: jsonschema.exceptions.ValidationError) -> dict[str, Any]:
    return {"type": str(error.validator), "loc": list(error.absolute_path), "msg": error.message}


class _ModelValidator(ArgumentValidator):
    def __init__(self, model: type[BaseModel]) -> None:
        super().__init__(inline_refs(model.model_json_schema()))
        self._model = model

    def validate(self, arguments: Any) -> Any:
        try:
            return self._model.model_validate(arguments)
        except ValidationError as exc:
            entries = [
                {"type": item["type"], "loc": list(item["loc"]), "msg": item["msg"]}
                for item in exc.errors(include_url=False)
            ]
            raise InvalidArguments(entries[:MAX_REPORTED_ERRORS]) from None


def compile_schema(schema: SchemaLike, *, owner: str) -> ArgumentValidator:
    """Compile a tool schema once; raise ``TypeError``/``ValueError`` naming ``owner``."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return _ModelValidator(schema)
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(f"{owner}: invalid JSON Schema: {exc.message}") from None
    return _DictValidator(schema)


def advertised_schema(schema: SchemaLike, *, owner: str) -> dict[str, Any]:
    """The JSON Schema dict to advertise for ``schema`` (models inlined)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return inline_refs(schema.model_json_schema())
    if not isinstance(schema, Mapping):
        raise TypeError(
            f"{owner}: a schema must be a dict or a pydantic model class, not {schema!r}"
        )
    return dict(schema)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace local ``#/$defs/X`` references by their definitions.

    Recursive definitions cannot be inlined; they keep their ``$ref`` and the
    needed ``$defs`` stay, so the result is still self-contained.
    """
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: set[str] = set()

    def walk(node: Any, active: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, active) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in active or name not in defs:
                kept.add(name)
                return node
            target = walk(copy.deepcopy(defs[name]), (*active, name))
            siblings = {k: walk(v, active) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings}
        return {k: walk(v, active) for k, v in node.items() if k != "$defs"}

    result: dict[str, Any] = walk(schema, ())
    if kept:
        result["$defs"] = {name: walk(defs[name], (name,)) for name in sorted(kept) if name in defs}
    return result
