"""The jsonschema side of ``compile_schema``: a schema's dialect class and its meta-check.

Imported only when a schema needs them (``genmcp.schema`` loads this module on first use):
jsonschema costs ~3 MB of memory, and a schema ``schema.wellformed`` proves valid is compiled
without it. Pure: no asyncio, no web framework; from genmcp only ``schema.keywords``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema.exceptions
import jsonschema.validators

from genmcp.schema import keywords

__all__ = ["check_meta", "dialect_class"]


def dialect_class(schema: Mapping[str, Any], default_dialect: str, *, owner: str) -> Any:
    """jsonschema's class for ``schema`` (``default_dialect`` when its ``$schema`` is none
    jsonschema knows); ``ValueError`` naming ``owner`` when ``default_dialect`` is unknown."""
    unknown: Any = None  # validator_for's default when $schema is not a known dialect
    default = jsonschema.validators.validator_for({"$schema": default_dialect}, unknown)
    if default is None:
        raise ValueError(
            f"{owner}: schema_options default_dialect {default_dialect!r} is not a "
            "JSON Schema dialect jsonschema knows"
        )
    return jsonschema.validators.validator_for(schema, default=default)


def check_meta(schema: Mapping[str, Any], cls: Any, *, owner: str) -> None:
    """``schema`` against ``cls``'s meta-schema (formats on); ``ValueError`` naming ``owner``."""
    meta_check: Any = cls.check_schema  # typeshed's protocol lacks format_checker=
    checker = keywords.format_checker(cls, for_schemas=True)
    try:
        meta_check(dict(schema), format_checker=checker)
    except jsonschema.exceptions.SchemaError as exc:
        raise ValueError(f"{owner}: invalid JSON Schema: {exc.message}") from None
