"""`genmcp.protocol.skills`: the Skills extension's vocabulary, pure.

The Agent Skills naming rule, skill paths, file URIs, the digest format and the builders.
"""

from __future__ import annotations

import hashlib

import pytest

from genmcp.protocol.skills import (
    check_skill_path,
    directory_item,
    file_uri,
    server_settings,
    sha256_digest,
    skill_entry,
    skill_resource,
    valid_skill_name,
)


@pytest.mark.parametrize("name", ["a", "pdf-processing", "x1", "a" * 64, "0-9"])
def test_valid_names(name: str) -> None:
    assert valid_skill_name(name)


@pytest.mark.parametrize(
    "name", ["", "A", "-a", "a-", "a--b", "a" * 65, "a_b", "é", "a b", None, 3]
)
def test_invalid_names(name: object) -> None:
    assert not valid_skill_name(name)


@pytest.mark.parametrize("path", ["git", "acme/billing/refunds", "v1.2/x~y"])
def test_usable_paths(path: str) -> None:
    assert check_skill_path(path) == path


@pytest.mark.parametrize("path", ["", "a//b", "a/../b", ".", "a b", "a/b/", "a:b", "a@b"])
def test_unusable_paths_name_the_segment(path: str) -> None:
    with pytest.raises(ValueError, match="segment"):
        check_skill_path(path)


def test_file_uris_encode_what_a_path_segment_cannot_hold() -> None:
    assert file_uri("skill", "pdf") == "skill://pdf"
    assert file_uri("skill", "pdf", "SKILL.md") == "skill://pdf/SKILL.md"
    assert file_uri("skill", "a/b", "my notes/50%.md") == "skill://a/b/my%20notes/50%25.md"


def test_the_digest_is_sha256_of_the_raw_bytes_in_lowercase_hex() -> None:
    data = b"hello\n"
    assert sha256_digest(data) == "sha256:" + hashlib.sha256(data).hexdigest()
    assert skill_resource("skill://a/SKILL.md", data) == {
        "uri": "skill://a/SKILL.md",
        "digest": sha256_digest(data),
        "size": 6,
    }


def test_builders() -> None:
    fm = {"name": "a", "description": "d"}
    entry = skill_entry("skill://a/SKILL.md", fm, [])
    assert entry == {"uri": "skill://a/SKILL.md", "frontmatter": fm, "resources": []}
    assert entry["frontmatter"] is not fm  # a copy
    assert skill_entry("u", fm, "dynamic")["resources"] == "dynamic"
    assert directory_item("skill://a/t", "t")["mimeType"] == "inode/directory"
    assert server_settings(directory_read=True) == {"directoryRead": True}
    assert server_settings(directory_read=False) == {}
