"""Tool schemas: compile once, advertise as self-contained JSON Schema, validate arguments.

A schema is a JSON Schema dict (validated with ``jsonschema``, format checks on, 2020-12
unless ``$schema`` says otherwise, advertised verbatim) or a pydantic model class
(advertised with its ``$ref``s inlined; arguments are cast into a model instance).
Validation failures become ``InvalidArguments`` with pydantic-core style entries.

This package's face: the compiler is ``schema.compile``, the limits on hostile arguments
``schema.limits`` (module globals: assign there to change one), the build options
``schema.options``. Imports no asyncio and no web framework.
"""

from __future__ import annotations

from genmcp.schema.compile import (
    ArgumentValidator,
    InvalidArguments,
    SchemaLike,
    advertised_schema,
    compile_schema,
)
from genmcp.schema.options import SchemaOptions, merge_options
from genmcp.schema.refs import inline_refs

__all__ = [
    "ArgumentValidator",
    "InvalidArguments",
    "SchemaLike",
    "SchemaOptions",
    "advertised_schema",
    "compile_schema",
    "inline_refs",
    "merge_options",
]
