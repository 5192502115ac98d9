"""The Skill and SkillRepo behaviours: skills (SEP-2640) as classes with options and hooks.

A skill is a directory of files with a ``SKILL.md`` at its root. ``Skill`` serves one:

    class Pdf(Skill, directory="skills/pdf-processing"): ...

and ``SkillRepo`` serves every skill directory under a folder (nested ones too):

    class Team(SkillRepo, directory="skills", prefix="acme"): ...

Both are configured with class keyword options and built once when the Suite adds them: the
files are read (the ``files`` / ``skills`` hooks; override them to serve skills that are not
on disk), checked and digested then, never per request. Every hook receives the provider
argument ``arg`` last: ``skills=[(Skill, "/srv/skills/pdf")]`` serves the skill directory
``arg`` names, ``skills=[(SkillRepo, "/srv/skills")]`` the folder. Hooks are plain ``def``
(they run while the Suite is built, off any request).

Imports genmcp's behaviour base and the folder reader; no asyncio, never a web framework.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from genmcp.behaviour import Behaviour
from genmcp.outcomes import CacheControl
from genmcp.skills.folder import find_skill_dirs, read_skill_dir

__all__ = ["Skill", "SkillRepo"]


class _SkillOptions(Behaviour):
    """What a Skill and a SkillRepo share: where the files are, how they are served."""

    option_keys: ClassVar[tuple[str, ...]] = (
        "directory",
        "prefix",
        "scheme",
        "scopes",
        "cache_control",
    )

    def info(self, key: str, arg: Any) -> Any:
        """The metadata ``key``: ``"prefix"`` (the organizational path before the skill's
        name, ``""`` by default), ``"scheme"`` (``"skill"`` by default), ``"_meta"``."""
        if key == "prefix":
            return self.option("prefix") or ""
        if key == "scheme":
            return self.option("scheme") or "skill"
        return self.option(key)

    def directory(self, arg: Any) -> Path | None:
        """The directory on disk: ``arg`` when it is a path, else the ``directory=`` option."""
        where = arg if isinstance(arg, str | os.PathLike) else self.option("directory")
        return None if where is None else Path(where)

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        """The OAuth scopes a caller needs to see and read the skills (``scopes=`` option)."""
        return tuple(self.option("scopes") or ())

    def cache_control(self, arg: Any) -> CacheControl:
        """How long entries and reads may be cached: the ``cache_control=`` option, else
        private, 0."""
        option: CacheControl | None = self.option("cache_control")
        return ("private", 0) if option is None else option

    def _where(self, arg: Any) -> Path:
        directory = self.directory(arg)
        if directory is None:
            raise ValueError(
                f"{type(self).__qualname__}: give a directory (class option directory=..., or "
                "the provider argument), or override the files hook"
            )
        return directory


class Skill(_SkillOptions):
    """One skill; subclass it with keyword options.

    Options: ``directory=`` (the skill directory; the provider argument overrides it),
    ``prefix=`` (served at ``skill://<prefix>/<name>/SKILL.md``), ``scheme=`` (``"skill"``),
    ``meta=`` (the ``_meta`` of its ``SKILL.md`` resource), ``scopes=``, ``cache_control=``.

    Example::

        class Pdf(Skill, directory="skills/pdf-processing", scopes=["docs:read"]):
            pass
    """

    kind: ClassVar[str] = "skill"
    option_keys: ClassVar[tuple[str, ...]] = (*_SkillOptions.option_keys, "meta")

    def files(self, arg: Any) -> Mapping[str, bytes]:
        """Every file of the skill: ``/``-separated relative path -> raw bytes, ``SKILL.md``
        among them. Defaults to the regular files under :meth:`directory` (symbolic links and
        dot-files skipped). Called once, when the Suite adds the skill."""
        return read_skill_dir(self._where(arg))


class SkillRepo(_SkillOptions):
    """Every skill under a folder; subclass it with keyword options.

    Each directory holding a ``SKILL.md`` is a skill named after it: ``<folder>/pdf/SKILL.md``
    is served at ``skill://<prefix>/pdf/SKILL.md`` and ``<folder>/acme/refunds/SKILL.md`` at
    ``skill://<prefix>/acme/refunds/SKILL.md`` (its frontmatter ``name`` must be
    ``refunds``). Options: ``directory=``, ``prefix=``, ``scheme=``, ``scopes=``,
    ``cache_control=``.

    Example: ``Suite(..., skills=[(SkillRepo, "skills")])`` serves the folder ``skills``.
    """

    kind: ClassVar[str] = "skill repository"

    def skills(self, arg: Any) -> Mapping[str, Mapping[str, bytes]]:
        """Every skill: its directory relative to the folder (``"pdf"``, ``"acme/refunds"``;
        ``""`` when the folder itself is one) -> its files. Called once, when the Suite adds
        the repository."""
        folder = self._where(arg)
        return {
            relative: read_skill_dir(folder / relative if relative else folder)
            for relative in find_skill_dirs(folder)
        }
