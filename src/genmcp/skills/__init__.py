"""Skills (SEP-2640, ``io.modelcontextprotocol/skills``): directories of files with a
``SKILL.md``, served to hosts as resources with a manifest.

``skill``: the ``Skill`` and ``SkillRepo`` behaviours; ``folder``: reading skill directories
on disk within the extension's limits; ``frontmatter``: a ``SKILL.md``'s YAML frontmatter as
JSON; ``content``: one skill built once (entry, files, directory tree). The Suite serves them
through ``genmcp.catalogs.skills``.
"""

from genmcp.skills.skill import Skill, SkillRepo

__all__ = ["Skill", "SkillRepo"]
