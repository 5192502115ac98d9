"""`genmcp.skills.skill`: the Skill and SkillRepo behaviours, their options and hooks."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from genmcp import Skill, SkillRepo, Suite
from genmcp.testing import MCPTestClient

SKILL_MD = b"---\nname: generated\ndescription: Made in memory.\n---\n# Generated\n"


class Generated(Skill, prefix="mem", scheme="docs", cache_control=("public", 60_000)):
    def files(self, arg: Any) -> Mapping[str, bytes]:
        return {"SKILL.md": SKILL_MD, "notes.txt": b"made, not read"}


async def test_a_skill_whose_files_hook_makes_them_in_memory() -> None:
    suite = Suite(server_name="s", server_version="1", skills=[Generated])
    async with MCPTestClient(suite) as client:
        got = (await client.request("skills/get", {"uri": "docs://mem/generated/SKILL.md"}))
        (notes,) = await client.read_resource("docs://mem/generated/notes.txt")
    result = got.unwrap()
    assert (result["ttlMs"], result["cacheScope"]) == (60_000, "public")
    assert notes["text"] == "made, not read"


def test_options_and_defaults(tmp_path: Path) -> None:
    assert Skill().info("scheme", None) == "skill" and Skill().info("prefix", None) == ""
    assert Skill().directory(str(tmp_path)) == tmp_path
    assert Skill().cache_control(None) == ("private", 0)
    with pytest.raises(TypeError, match="unknown Skill option"):

        class Wrong(Skill, name="x"):  # the name comes from the frontmatter
            pass


def test_no_directory_says_how_to_give_one() -> None:
    with pytest.raises(ValueError, match="give a directory"):
        Skill().files(None)
    with pytest.raises(ValueError, match="give a directory"):
        SkillRepo().skills(None)


def test_a_files_hook_returning_the_wrong_shape_is_refused() -> None:
    class Bad(Skill):
        def files(self, arg: Any) -> Any:
            return {"SKILL.md": "text, not bytes"}

    with pytest.raises(TypeError, match="relative path -> bytes"):
        Suite(server_name="s", server_version="1", skills=[Bad])


def test_a_repository_skill_must_be_named_after_its_directory(tmp_path: Path) -> None:
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "SKILL.md").write_bytes(SKILL_MD)  # name: generated
    with pytest.raises(ValueError, match="directory name"):
        Suite(server_name="s", server_version="1", skills=[(SkillRepo, str(tmp_path))])
