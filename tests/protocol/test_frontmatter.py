"""`genmcp.protocol.frontmatter`: a SKILL.md's YAML frontmatter, as the JSON sent verbatim."""

from __future__ import annotations

import pytest

from genmcp.protocol.frontmatter import parse_frontmatter


def test_every_field_passes_through() -> None:
    text = (
        "\ufeff---\nname: pdf\ndescription: Does PDFs.\nlicense: MIT\n"
        "metadata:\n  version: '2.1'\n  tags: [a, b]\n---\n# Body\n"
    )
    assert parse_frontmatter(text, "x") == {
        "name": "pdf",
        "description": "Does PDFs.",
        "license": "MIT",
        "metadata": {"version": "2.1", "tags": ["a", "b"]},
    }


def test_yaml_1_1_habits_are_off_dates_and_yes_stay_strings() -> None:
    text = "---\nname: a\ndescription: d\ndate: 2026-01-02\nok: yes\non: off\nt: true\n---\n"
    found = parse_frontmatter(text, "x")
    assert found["date"] == "2026-01-02"
    assert found["ok"] == "yes" and found["on"] == "off"
    assert found["t"] is True


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("# no frontmatter\n", "must begin"),
        ("---\nname: a\n", "must begin"),  # never closed
        ("---\n: : :\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "mapping"),
        ("---\nname: a\ndescription: d\nb: !!binary aGk=\n---\n", "JSON"),
        ("---\nname: a\ndescription: d\nx: .nan\n---\n", "JSON"),
        ("---\nname: a\ndescription: d\n1: one\n---\n", "string keys"),
        ("---\nname: a\n---\n", "description"),
        ("---\nname: ''\ndescription: d\n---\n", "name"),
        ("---\nname: a\ndescription: d\nx: !!python/object:os.system x\n---\n", "YAML"),
    ],
)
def test_bad_frontmatter_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as caught:
        parse_frontmatter(text, "skills/a/SKILL.md")
    assert "skills/a/SKILL.md" in str(caught.value)
