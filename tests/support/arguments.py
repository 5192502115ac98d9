"""`validate(schema, arguments, **options)`: what a client is told about tool arguments.

Compiles `schema` as a tool's would be (`genmcp.schema.compile_schema` with the options
merged as a tool's `schema_options`) and validates on the calling thread with the whole
budget. Shared by the tests of the schema modules (tests/schema/).
"""

from __future__ import annotations

from typing import Any

from genmcp.schema import InvalidArguments, compile_schema, merge_options


def validate(schema: dict[str, Any], arguments: Any, **options: Any) -> str | None:
    """None when valid, else the client-facing description of the failure."""
    validator = compile_schema(schema, owner="T", options=merge_options(None, options, owner="T"))
    try:
        validator.validate(arguments)
    except InvalidArguments as exc:
        return exc.describe()
    return None
