"""protocol.content: the content block builders and ``call_tool_result``.

Every shape is also checked against the official 2026-07-28 schema (the repository's copy).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import BaseModel, Field

from genmcp.protocol.content import (
    audio,
    call_tool_result,
    embedded_resource,
    image,
    resource_link,
    text,
)
from support import schema

NOTE = {"audience": ["user"], "priority": 0.5}


def test_text_and_media_blocks() -> None:
    assert text("hi") == {"type": "text", "text": "hi"}
    assert text("", annotations=NOTE, meta={"k": 1}) == {
        "type": "text",
        "text": "",
        "annotations": NOTE,
        "_meta": {"k": 1},
    }
    assert image(b"\x89PNG", "image/png") == {
        "type": "image",
        "data": "iVBORw==",
        "mimeType": "image/png",
    }
    assert audio("UklGRg==", "audio/wav")["data"] == "UklGRg=="
    with pytest.raises(ValueError, match=r"^audio data is a str but not valid standard base64"):
        audio("RIFF....", "audio/wav")
    with pytest.raises(TypeError, match=r"^image data must be bytes"):
        image(None, "image/png")  # type: ignore[arg-type]


def test_links_and_embedded_resources() -> None:
    assert resource_link("a://b", "b", size=3, mime_type="text/plain") == {
        "type": "resource_link",
        "uri": "a://b",
        "name": "b",
        "mimeType": "text/plain",
        "size": 3,
    }
    assert embedded_resource("a://b", text="hi", mime_type="text/plain", meta={"k": 1}) == {
        "type": "resource",
        "resource": {"uri": "a://b", "mimeType": "text/plain", "text": "hi"},
        "_meta": {"k": 1},
    }
    assert embedded_resource("a://c", blob=b"\x00")["resource"] == {"uri": "a://c", "blob": "AA=="}
    assert embedded_resource("a://d", text="")["resource"]["text"] == ""  # empty is given
    for both_or_neither in ({}, {"text": "t", "blob": b"b"}):
        with pytest.raises(ValueError, match="exactly one of text= or blob="):
            embedded_resource("a://b", **both_or_neither)


def test_a_keyword_no_builder_declares_is_a_type_error() -> None:
    misspelt: dict[str, Any] = {"annotation": NOTE}
    for build, args in ((text, ("hi",)), (image, (b"x", "image/png")), (audio, (b"x", "a/b"))):
        with pytest.raises(TypeError, match=rf"^{build.__name__}\(\) got an unexpected .*'annot"):
            build(*args, **misspelt)
    with pytest.raises(TypeError, match=r"^embedded_resource\(\) got an unexpected .*'metadata'"):
        embedded_resource("a://b", text="hi", metadata={})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"^resource_link\(\) got an unexpected .*'mimeType'"):
        resource_link("a://b", "b", mimeType="text/plain")  # type: ignore[call-arg]


def test_the_annotations_are_copied() -> None:
    note = {"priority": 1}
    block = text("x", annotations=note)
    note["priority"] = 0
    assert block["annotations"] == {"priority": 1}


class Weather(BaseModel):
    temperature_c: float = Field(alias="temperatureC")
    city: str


@pytest.mark.parametrize(
    ("options", "result"),
    [
        ({}, {"content": []}),
        ({"text": "ok"}, {"content": [{"type": "text", "text": "ok"}]}),
        (
            {"structured": {"n": 1, "s": "é"}},
            {
                "content": [{"type": "text", "text": '{"n":1,"s":"é"}'}],  # the JSON text mirror
                "structuredContent": {"n": 1, "s": "é"},
            },
        ),
        (
            {"structured": {"n": 1}, "text": "one"},  # the text replaces the mirror
            {"content": [{"type": "text", "text": "one"}], "structuredContent": {"n": 1}},
        ),
        (
            {"error": "boom", "text": "detail", "content": [{"type": "text", "text": "more"}]},
            {
                "content": [
                    {"type": "text", "text": "boom"},
                    {"type": "text", "text": "detail"},
                    {"type": "text", "text": "more"},
                ],
                "isError": True,
            },
        ),
        ({"structured": [], "meta": {"k": 1}}, {
            "content": [{"type": "text", "text": "[]"}], "structuredContent": [], "_meta": {"k": 1},
        }),
    ],
)  # fmt: skip
def test_call_tool_result(options: dict[str, Any], result: dict[str, Any]) -> None:
    assert call_tool_result(**options) == result


def test_a_model_is_dumped_by_alias_in_json_mode() -> None:
    result = call_tool_result(structured=Weather(temperatureC=21.5, city="Oslo"))
    assert result["structuredContent"] == {"temperatureC": 21.5, "city": "Oslo"}
    assert result["content"][0]["text"] == '{"temperatureC":21.5,"city":"Oslo"}'


def test_structured_content_must_be_json() -> None:
    with pytest.raises(ValueError):
        call_tool_result(structured={"x": math.inf})
    with pytest.raises(TypeError):
        call_tool_result(structured={"x": object()})


def test_every_shape_matches_the_schema() -> None:
    schema.require_schema()
    png = image(b"\x89PNG", "image/png", annotations=NOTE)
    blocks = [
        text("t", annotations=NOTE, meta={"k": 1}),
        png,
        audio(b"RIFF", "audio/wav"),
        resource_link("a://b", "b", title="B", description="d", size=1, icons=[]),
        embedded_resource("a://c", blob=b"\x00", mime_type="application/octet-stream"),
    ]
    result = call_tool_result(error="e", structured={"n": 1}, content=blocks, meta={"m": 1})
    schema.validate({**result, "resultType": "complete"}, "CallToolResult")
