"""protocol.resources: the resource listing, template, contents and read-result builders.

The schema check of every builder moved here from test_resource.py; then each builder's
optional keys and refusals.
"""

from __future__ import annotations

import pytest

from genmcp import (
    blob_contents,
    complete_result,
    read_resource_result,
    resource_item,
    resource_template,
    text_contents,
)
from genmcp.protocol.resources import described
from support import schema


def test_resource_builders_match_the_schema() -> None:
    schema.require_schema()
    text = text_contents("a://b", "hi", mime_type="text/plain", meta={"k": 1})
    blob = blob_contents("a://c", b"\x00\x01")
    schema.validate(text, "TextResourceContents")
    schema.validate(blob, "BlobResourceContents")
    result = read_resource_result([text, blob], ttl_ms=5, cache_scope="public")
    schema.validate({**result, "resultType": "complete"}, "ReadResourceResult")
    schema.validate(resource_item("a://b", "b", size=3, title="B"), "Resource")
    schema.validate(resource_template("a://{x}", "x", mime_type="text/plain"), "ResourceTemplate")
    with pytest.raises(ValueError, match="at least one"):
        read_resource_result([])
    with pytest.raises(ValueError, match="together"):
        read_resource_result(text, ttl_ms=5)
    assert complete_result(["a"]) == {"completion": {"values": ["a"]}}


def test_contents_carry_only_the_keys_given() -> None:
    assert text_contents("a://b", "hi") == {"uri": "a://b", "text": "hi"}
    assert text_contents("a://b", "", mime_type="text/plain", meta={"k": 1}) == {
        "uri": "a://b",
        "mimeType": "text/plain",
        "text": "",
        "_meta": {"k": 1},
    }
    assert blob_contents("a://c", b"\x00\x01") == {"uri": "a://c", "blob": "AAE="}
    assert blob_contents("a://c", "AAE=", mime_type="image/png")["blob"] == "AAE="
    with pytest.raises(ValueError, match="resource blob is a str but not valid"):
        blob_contents("a://c", "not base64!")


def test_a_read_result_copies_its_contents() -> None:
    part = text_contents("a://b", "hi")
    single = read_resource_result(part)
    assert single == {"contents": [part]} and single["contents"][0] is not part
    several = read_resource_result(iter([part, blob_contents("a://c", b"x")]), meta={"m": 1})
    assert [each["uri"] for each in several["contents"]] == ["a://b", "a://c"]
    assert several["_meta"] == {"m": 1}
    cached = read_resource_result(part, ttl_ms=0, cache_scope="private")
    assert (cached["ttlMs"], cached["cacheScope"]) == (0, "private")
    with pytest.raises(ValueError, match="together"):
        read_resource_result(part, cache_scope="public")


def test_items_and_templates_carry_the_described_keys_in_wire_names() -> None:
    icon = {"src": "https://x.example/i.png"}
    item = resource_item(
        "a://b", "b", title="B", description="d", mime_type="text/plain", size=0,
        annotations={"priority": 1}, icons=[icon], meta={"k": 1},
    )  # fmt: skip
    assert item == {
        "uri": "a://b",
        "name": "b",
        "title": "B",
        "description": "d",
        "mimeType": "text/plain",
        "size": 0,
        "annotations": {"priority": 1},
        "icons": [icon],
        "_meta": {"k": 1},
    }
    assert item["icons"][0] is not icon
    assert resource_template("a://{x}", "x") == {"uriTemplate": "a://{x}", "name": "x"}
    assert "size" not in resource_template("a://{x}", "x", description="d")


def test_described_adds_nothing_unset() -> None:
    item = {"uri": "a://b", "name": "b"}
    assert described(item, {"title": None, "size": None, "icons": None}, "x") is item
    assert item == {"uri": "a://b", "name": "b"}


def test_a_keyword_the_builder_does_not_declare_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"resource_item\(\) got an unexpected keyword .*'titel'"):
        resource_item("a://b", "b", titel="B")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"resource_template\(\) got an unexpected .*'size'"):
        resource_template("a://{x}", "x", size=3)  # type: ignore[call-arg]
