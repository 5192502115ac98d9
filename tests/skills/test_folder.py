"""`genmcp.skills.folder`: skill directories on disk, read within the extension's limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from genmcp.skills.folder import find_skill_dirs, read_skill_dir


def make(root: Path, files: dict[str, bytes]) -> Path:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_reads_every_regular_file_but_links_and_dot_files(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    skill = make(tmp_path / "s", {"SKILL.md": b"x", "a/b.md": b"b", ".hidden": b"h"})
    (skill / "link.txt").symlink_to(outside)
    (skill / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    (skill / ".git").mkdir()
    (skill / ".git" / "HEAD").write_text("ref")
    assert read_skill_dir(skill) == {"SKILL.md": b"x", "a/b.md": b"b"}
    (tmp_path / "alias").symlink_to(skill, target_is_directory=True)  # named by the operator
    assert read_skill_dir(tmp_path / "alias") == {"SKILL.md": b"x", "a/b.md": b"b"}


def test_a_directory_without_skill_md_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no SKILL\.md"):
        read_skill_dir(make(tmp_path / "s", {"README.md": b"x"}))
    with pytest.raises(ValueError, match="not a directory"):
        read_skill_dir(tmp_path / "missing")


def test_the_limits_hold_before_reading_past_them(tmp_path: Path) -> None:
    many = make(tmp_path / "many", {"SKILL.md": b"x", **{f"{i}": b"" for i in range(512)}})
    with pytest.raises(ValueError, match="limits"):
        read_skill_dir(many)
    big = make(tmp_path / "big", {"SKILL.md": b"x"})
    with open(big / "blob.bin", "wb") as handle:  # sparse: no 16 MiB written
        handle.truncate(16 * 1024 * 1024)
    with pytest.raises(ValueError, match="limits"):
        read_skill_dir(big)


def test_finds_skill_directories_nested_ones_too(tmp_path: Path) -> None:
    make(tmp_path, {"a/SKILL.md": b"", "a/inner/SKILL.md": b"", "b/c/SKILL.md": b"", "x.md": b""})
    os.symlink(tmp_path / "a", tmp_path / "link")
    assert find_skill_dirs(tmp_path) == ["a", "a/inner", "b/c"]
    assert find_skill_dirs(tmp_path / "a") == ["", "inner"]
    with pytest.raises(ValueError, match="not a directory"):
        find_skill_dirs(tmp_path / "x.md")
