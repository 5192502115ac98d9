"""Shaping a Suite's catalog: transforms, versions, prompts and resources as tools.

* :class:`Transform` (``Suite(transforms=[...])``): rename, re-describe, namespace, hide an
  argument (a default, or a value from the caller) of any tool, own, mounted or imported;
* ``Suite.disable`` / ``Suite.enable``: turn a tool or prompt off and on at runtime, on
  every process (``sync.catalog``);
* :func:`versioned`: several versions of one tool, pinned per call by ``_meta``;
* :func:`prompts_as_tools`, :func:`resources_as_tools`: for clients that only call tools.

See docs/guides/shaping.md. Modules: ``transform``, ``versions``, ``as_tools``.
"""

from __future__ import annotations

from genmcp.transforms.as_tools import prompts_as_tools, resources_as_tools
from genmcp.transforms.transform import Hidden, Transform, shaped
from genmcp.transforms.versions import PIN, VERSIONS, VersionedTool, VersionSet, versioned

__all__ = [
    "PIN",
    "VERSIONS",
    "Hidden",
    "Transform",
    "VersionSet",
    "VersionedTool",
    "prompts_as_tools",
    "resources_as_tools",
    "shaped",
    "versioned",
]
