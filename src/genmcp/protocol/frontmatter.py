"""A ``SKILL.md``'s YAML frontmatter, read as the JSON object ``skills/list`` sends verbatim.

The frontmatter is the block between a leading ``---`` line and the next ``---`` line. It is
parsed with PyYAML's safe loader, with two YAML 1.1 habits turned off so that what we send is
what a YAML 1.2 reader (a host checking the entry against the file) finds: timestamps stay
strings, and only ``true``/``false`` are booleans (``yes``, ``on`` ... stay strings). The
result must be a JSON object with string keys and a non-empty ``name`` and ``description``
(the Agent Skills specification requires both); anything else is a ``ValueError`` saying
which file and what is wrong.

Shared by the server (``genmcp.skills``, building entries) and the client
(``genmcp.client.skills``, checking a fetched ``SKILL.md`` against its entry). Imports PyYAML
(lazily, on first use) and ``json``; no I/O.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Final

__all__ = ["parse_frontmatter"]

_BLOCK: Final = re.compile(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)
_BOOL: Final = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_BOOL_TAG: Final = "tag:yaml.org,2002:bool"
_DROPPED: Final = frozenset({"tag:yaml.org,2002:timestamp", _BOOL_TAG})


@functools.cache
def _loader() -> Any:
    """A SafeLoader subclass with YAML 1.2 booleans and no timestamps."""
    import yaml

    class Loader(yaml.SafeLoader):
        """PyYAML's safe loader, closer to YAML 1.2's core schema."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(_BOOL_TAG, _BOOL, list("tTfF"))
    return Loader


def parse_frontmatter(text: str, where: str) -> dict[str, Any]:
    """The frontmatter of the ``SKILL.md`` text ``text`` as a JSON object.

    Args:
        text: the whole file, decoded.
        where: what the file is, for messages (a path or a URI).

    Raises:
        ValueError: no frontmatter block, YAML that does not parse, a value JSON cannot
            hold, or no non-empty ``name`` / ``description``.
    """
    import yaml

    match = _BLOCK.match(text.removeprefix("\ufeff"))
    if match is None:
        raise ValueError(f"{where}: SKILL.md must begin with a '---' YAML frontmatter block")
    try:
        data = yaml.load(match[1], Loader=_loader())
    except yaml.YAMLError as exc:
        raise ValueError(f"{where}: the frontmatter is not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        raise ValueError(f"{where}: the frontmatter must be a mapping with string keys")
    try:
        if json.loads(json.dumps(data, allow_nan=False)) != data:
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(
            f"{where}: the frontmatter holds a value JSON cannot (a binary, a set, NaN, "
            "a non-string key...)"
        ) from None
    for field in ("name", "description"):
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise ValueError(f"{where}: the frontmatter needs a non-empty {field!r} string")
    return data
