"""Skills on disk: the files of one skill directory, and the skill directories under a folder.

A skill's files are every regular file under its directory, by ``/``-separated relative path.
Symbolic links inside it are skipped (a link could reach outside the directory; the directory
itself may be one, since the operator names it), and so are names that
start with ``.`` (``.git``, ``.DS_Store``): what is served is what the directory plainly holds.
The extension's limits are held while walking, before a byte past them is read: more than
:data:`~genmcp.protocol.skills.MAX_SKILL_RESOURCES` files or more than
:data:`~genmcp.protocol.skills.MAX_SKILL_BYTES` in all is a ``ValueError`` naming the
directory, so a server never starts serving a skill no host has to accept.

Blocking file I/O: run when a skill is added (the Suite is built), never per request.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from genmcp.protocol.skills import MAX_SKILL_BYTES, MAX_SKILL_RESOURCES, SKILL_FILE

__all__ = ["find_skill_dirs", "read_skill_dir"]


def _visible(name: str) -> bool:
    return not name.startswith(".")


def read_skill_dir(directory: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every file of the skill at ``directory``: relative path -> raw bytes, sorted.

    Raises:
        ValueError: ``directory`` is no directory, has no ``SKILL.md`` file, or passes a
            limit of the extension.
    """
    root = Path(directory)
    if not root.is_dir():  # the directory itself may be a link: the operator chose it
        raise ValueError(f"skill directory {str(root)!r} is not a directory")
    if not (root / SKILL_FILE).is_file() or (root / SKILL_FILE).is_symlink():
        raise ValueError(f"skill directory {str(root)!r} has no {SKILL_FILE} file")
    found: list[tuple[str, Path]] = []
    total = 0
    for base, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if _visible(d) and not (Path(base) / d).is_symlink())
        for name in sorted(filter(_visible, names)):
            path = Path(base) / name
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                continue  # links, sockets, devices: not content
            total += info.st_size
            found.append((path.relative_to(root).as_posix(), path))
            if len(found) > MAX_SKILL_RESOURCES or total > MAX_SKILL_BYTES:
                raise ValueError(
                    f"skill directory {str(root)!r} holds more than {MAX_SKILL_RESOURCES} files "
                    f"or {MAX_SKILL_BYTES} bytes: past the Skills extension's limits"
                )
    files = {relative: path.read_bytes() for relative, path in sorted(found)}
    if sum(map(len, files.values())) > MAX_SKILL_BYTES:  # grew while we read
        raise ValueError(f"skill directory {str(root)!r} grew past {MAX_SKILL_BYTES} bytes")
    return files


def find_skill_dirs(folder: str | os.PathLike[str]) -> list[str]:
    """The skill directories under ``folder`` (itself included), as ``/``-separated paths
    relative to it (``""`` for ``folder`` itself), sorted; nested skills are listed too.

    Raises:
        ValueError: ``folder`` is not a directory.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"skills folder {str(root)!r} is not a directory")
    found: list[str] = []
    for base, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if _visible(d) and not (Path(base) / d).is_symlink())
        here = Path(base)
        if SKILL_FILE in names and not (here / SKILL_FILE).is_symlink():
            relative = here.relative_to(root).as_posix()
            found.append("" if relative == "." else relative)
    return sorted(found)
