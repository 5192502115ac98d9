"""The MCP registry's ``server.json`` schema and the draft Server Card schema, as validators.

The schema files beside this module are vendored (``SOURCES.md``, ``LICENSE``; the card's in
``../server_card``); each validator checks formats too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import jsonschema

HERE: Final = Path(__file__).resolve().parent
SERVER_JSON: Final = HERE / "server.schema.json"
SERVER_CARD: Final = HERE.parent / "server_card" / "schema.json"


def _validator(path: Path, cls: Any) -> Any:
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def server_json_errors(document: Any) -> list[str]:
    """Why ``document`` is not a valid ``server.json`` (empty when it is)."""
    validator = _validator(SERVER_JSON, jsonschema.Draft7Validator)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def server_card_errors(document: Any) -> list[str]:
    """Why ``document`` is not a valid Server Card per the draft's schema (empty when it is)."""
    defs = json.loads(SERVER_CARD.read_text(encoding="utf-8"))
    schema = {**defs, "$ref": "#/$defs/ServerCard"}
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
