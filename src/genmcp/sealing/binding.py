"""Binding a token to what it was made for: :func:`digest` of canonical JSON.

A token's payload carries ``digest(tool, arguments, principal)`` and the code that opens it
compares that digest again, so a token made for one call never serves another.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["digest"]


def digest(*parts: Any) -> str:
    """Return the SHA-256 hex digest of the canonical JSON of ``parts``.

    Canonical JSON: keys sorted, no whitespace, non-ASCII kept as UTF-8. Used to bind a token
    to what it was made for, e.g. ``digest(tool_name, arguments, principal)``.

    Args:
        *parts: JSON values (dict keys must be str).

    Returns:
        64 lowercase hex characters.

    Raises:
        TypeError: A part is not JSON-serializable.
        ValueError: A part holds NaN or an infinity.
    """
    canonical = json.dumps(
        list(parts), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    # surrogatepass: lone surrogates (legal in JSON strings) must not crash the hash.
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
