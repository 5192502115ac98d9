"""The Skills extension's vocabulary (SEP-2640, ``io.modelcontextprotocol/skills``).

A skill is a directory of files with a ``SKILL.md`` at its root, served as resources under
``<scheme>://<skill-path>/<file-path>``; the final segment of ``<skill-path>`` is the skill's
``name``. ``skills/list`` and ``skills/get`` answer *entries*: the ``SKILL.md`` URI, its YAML
frontmatter as JSON, and the complete manifest of its files as ``{uri, digest, size}``
(digest ``sha256:<64 lowercase hex>`` of the raw bytes). ``resources/directory/read`` lists
a directory resource's direct children, subdirectories with ``mimeType: inode/directory``.

The extension's limits (a server should not serve past them; a host must accept up to them)
and the naming rule of the Agent Skills specification are here too.

Pure: ``hashlib``, ``re`` and ``urllib.parse`` only; no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote

__all__ = [
    "DIRECTORY_MIME_TYPE",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_RESOURCES",
    "META_PREFIX",
    "SKILLS_EXTENSION",
    "SKILL_FILE",
    "SKILL_MIME_TYPE",
    "check_skill_path",
    "directory_item",
    "file_uri",
    "server_settings",
    "sha256_digest",
    "skill_entry",
    "skill_resource",
    "valid_skill_name",
]

SKILLS_EXTENSION: Final = "io.modelcontextprotocol/skills"
"""The extension identifier, a key of ``capabilities.extensions``."""
SKILL_FILE: Final = "SKILL.md"
"""The manifest every skill has at its root."""
SKILL_MIME_TYPE: Final = "text/markdown"
"""The ``mimeType`` of a ``SKILL.md`` resource."""
DIRECTORY_MIME_TYPE: Final = "inode/directory"
"""The ``mimeType`` of a directory resource (``resources/directory/read``)."""
META_PREFIX: Final = "io.modelcontextprotocol.skills/"
"""The ``_meta`` key prefix reserved for this extension on skill resources."""
MAX_SKILL_RESOURCES: Final = 512
"""Entries of one skill's ``resources`` (``SKILL.md`` included) a host must accept."""
MAX_SKILL_BYTES: Final = 16 * 1024 * 1024
"""Sum of ``size`` over one skill's ``resources`` a host must accept (16 MiB)."""

_NAME: Final = re.compile(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?", re.ASCII)
_SEGMENT: Final = re.compile(r"[A-Za-z0-9._~-]+", re.ASCII)
_FILE_SAFE: Final = "!$&'()*+,;=:@-._~"  # RFC 3986 pchar, kept as is in a file URI


def valid_skill_name(name: object) -> bool:
    """The Agent Skills naming rule: 1-64 of ``a-z 0-9 -``, no leading, trailing or
    doubled hyphen."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_skill_path(path: str) -> str:
    """``path`` (``"git-workflow"``, ``"acme/billing/refunds"``) if it is a usable
    ``<skill-path>``: ``/``-separated segments of ``A-Z a-z 0-9 . _ ~ -``, none ``.`` or
    ``..`` (the first is the URI authority, so it must be a plain reg-name); else
    ``ValueError`` saying which segment is wrong."""
    segments = path.split("/")
    for segment in segments:
        if not _SEGMENT.fullmatch(segment) or segment in (".", ".."):
            raise ValueError(
                f"skill path {path!r}: segment {segment!r} must be letters, digits, '.', '_', "
                "'~' or '-' (and not '.' or '..')"
            )
    return path


def file_uri(scheme: str, skill_path: str, file_path: str = "") -> str:
    """The URI of ``file_path`` (relative, ``/``-separated) in the skill at ``skill_path``;
    the skill's root directory when ``file_path`` is empty (no trailing slash). Each file
    path segment is percent-encoded where RFC 3986 needs it."""
    root = f"{scheme}://{skill_path}"
    if not file_path:
        return root
    return root + "/" + "/".join(quote(part, safe=_FILE_SAFE) for part in file_path.split("/"))


def sha256_digest(data: bytes) -> str:
    """``sha256:<64 lowercase hex>`` of ``data`` (the manifest's digest format)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_resource(uri: str, data: bytes) -> dict[str, Any]:
    """One manifest entry: ``{"uri", "digest", "size"}`` of a file's raw bytes."""
    return {"uri": uri, "digest": sha256_digest(data), "size": len(data)}


def skill_entry(
    uri: str, frontmatter: Mapping[str, Any], resources: Sequence[Mapping[str, Any]] | str
) -> dict[str, Any]:
    """A ``Skill`` entry of ``skills/list`` and ``skills/get``: the ``SKILL.md`` URI, the
    frontmatter verbatim, and the complete manifest (or ``"dynamic"``)."""
    manifest: list[dict[str, Any]] | str = (
        resources if isinstance(resources, str) else [dict(r) for r in resources]
    )
    return {"uri": uri, "frontmatter": dict(frontmatter), "resources": manifest}


def directory_item(uri: str, name: str) -> dict[str, Any]:
    """A directory child of ``resources/directory/read``: ``mimeType: inode/directory``."""
    return {"uri": uri, "name": name, "mimeType": DIRECTORY_MIME_TYPE}


def server_settings(*, directory_read: bool) -> dict[str, Any]:
    """The extension's settings in ``capabilities.extensions`` (inline, no envelope)."""
    return {"directoryRead": True} if directory_read else {}
