"""Skills (SEP-2640, ``io.modelcontextprotocol/skills``): directories of files with a
``SKILL.md``, served to hosts as resources with a manifest.

``skill``: the ``Skill`` and ``SkillRepo`` behaviours; ``folder``: reading skill directories
on disk within the extension's limits; ``content``: one skill built once (entry, files,
directory tree; the frontmatter is read by ``genmcp.protocol.frontmatter``, which the client
shares to verify what it fetches). The Suite serves them
through ``genmcp.catalogs.skills``.
"""

from genmcp.skills.skill import Skill, SkillRepo

__all__ = ["Skill", "SkillRepo"]
