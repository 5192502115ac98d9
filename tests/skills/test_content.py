"""`genmcp.skills.content`: one skill built once, and the rules it holds."""

from __future__ import annotations

import pytest

from genmcp.skills.content import build_skill

SKILL_MD = b"---\nname: pdf\ndescription: Does PDFs.\n---\n# PDF\n"


def test_builds_the_entry_the_files_and_the_tree() -> None:
    files = {"SKILL.md": SKILL_MD, "scripts/run.py": b"print(1)\n", "data.bin": b"\x00\xff"}
    meta = {"io.modelcontextprotocol.skills/x": 1}
    built = build_skill("skill", "acme", files, where="t", meta=meta)
    assert built.uri == "skill://acme/pdf/SKILL.md" and built.root == "skill://acme/pdf"
    assert [r["uri"] for r in built.entry["resources"]] == [
        "skill://acme/pdf/SKILL.md",
        "skill://acme/pdf/data.bin",
        "skill://acme/pdf/scripts/run.py",
    ]
    skill_md = built.files["skill://acme/pdf/SKILL.md"]
    assert skill_md.item["name"] == "pdf" and skill_md.item["description"] == "Does PDFs."
    assert skill_md.item["_meta"] == {"io.modelcontextprotocol.skills/x": 1}
    assert skill_md.contents()["mimeType"] == "text/markdown"
    assert "text" in built.files["skill://acme/pdf/scripts/run.py"].contents()
    assert "blob" in built.files["skill://acme/pdf/data.bin"].contents()
    assert set(built.directories) == {"skill://acme/pdf", "skill://acme/pdf/scripts"}
    assert built.directories["skill://acme/pdf"]["skill://acme/pdf/scripts"]["mimeType"] == (
        "inode/directory"
    )


@pytest.mark.parametrize(
    ("files", "expected", "why"),
    [
        ({"README.md": b"x"}, None, "needs a SKILL.md"),
        ({"SKILL.md": b"\xff\xfe"}, None, "UTF-8"),
        ({"SKILL.md": b"---\nname: Bad_Name\ndescription: d\n---\n"}, None, "naming rule"),
        ({"SKILL.md": SKILL_MD}, "other", "must equal its directory name"),
        ({"SKILL.md": SKILL_MD, "../escape": b""}, None, "relative"),
        ({"SKILL.md": SKILL_MD, "a//b": b""}, None, "relative"),
        ({"SKILL.md": SKILL_MD, **{str(i): b"" for i in range(512)}}, None, "limits"),
    ],
)
def test_the_rules(files: dict[str, bytes], expected: str | None, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        build_skill("skill", "", files, where="t", expected_name=expected)
