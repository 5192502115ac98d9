"""What every 2026-07-28 wire-shape builder shares: JSON aliases and the unset convention.

Builders (``content``, ``input_requests``, ``resources``, ``prompts``) take snake_case keyword
arguments, drop the ones left unset (``None``) with :func:`put`, copy caller mappings with
:func:`copy_mapping` and return a fresh ``dict`` the caller owns. A keyword set several
builders share is declared once as a ``TypedDict`` (:class:`ExtraKeywords`) they take as
``**keywords: Unpack[...]``; :func:`check_keywords` refuses a misspelt one at run time.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = [
    "JSON",
    "ExtraKeywords",
    "JSONObject",
    "check_keywords",
    "compact_json",
    "copy_mapping",
    "put",
    "to_base64",
]

JSON = Any
"""Any JSON value: ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``."""

JSONObject = dict[str, Any]
"""A JSON object as built by this module (a fresh ``dict`` with ``str`` keys)."""


class ExtraKeywords(TypedDict, total=False):
    """The optional keywords every content block, ``Resource`` and ``ResourceTemplate`` takes.

    Attributes:
        annotations: ``Annotations`` (``audience``, ``priority``, ``lastModified``).
        meta: The ``_meta`` object.
    """

    annotations: Mapping[str, Any] | None
    meta: Mapping[str, Any] | None


def check_keywords(keywords: Mapping[str, Any], declared: frozenset[str], where: str) -> None:
    """Refuse with ``TypeError`` a keyword not ``declared``, as Python refuses one a signature
    does not name (``**keywords: Unpack[...]`` is checked by type checkers only)."""
    if not keywords.keys() <= declared:
        unknown = next(key for key in keywords if key not in declared)
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown!r}")


def put(target: JSONObject, key: str, value: Any) -> None:
    """Set ``target[key]`` unless ``value`` is ``None`` (unset)."""
    if value is not None:
        target[key] = value


def copy_mapping(value: Mapping[str, Any] | None) -> JSONObject | None:
    """Return a shallow ``dict`` copy of a mapping, keeping ``None`` as unset."""
    return None if value is None else dict(value)


def to_base64(data: bytes | str, field: str) -> str:
    """Encode bytes as standard base64, or check that a ``str`` already is base64."""
    if isinstance(data, str):
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(
                f"{field} is a str but not valid standard base64; pass bytes to have it encoded"
            ) from exc
        return data
    if isinstance(data, bytes | bytearray | memoryview):
        return base64.b64encode(data).decode("ascii")
    raise TypeError(f"{field} must be bytes or a base64 str, not {type(data).__name__}")


def compact_json(value: Any) -> str:
    """Serialize a JSON value compactly, keeping non-ASCII characters as they are."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
