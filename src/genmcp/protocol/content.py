"""Builders for 2026-07-28 content blocks and ``CallToolResult``.

``text``, ``image``, ``audio``, ``resource_link`` and ``embedded_resource`` build the content
blocks a tool (or a prompt) answers with; ``call_tool_result`` wraps them into the result of
``tools/call``. Conventions in :mod:`genmcp.protocol.shapes`; re-exported by
:mod:`genmcp.protocol.v2607`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Unpack

from pydantic import BaseModel

from genmcp.protocol.resources import ResourceKeywords, described
from genmcp.protocol.shapes import (
    JSON,
    ExtraKeywords,
    JSONObject,
    check_keywords,
    compact_json,
    copy_mapping,
    put,
    to_base64,
)

__all__ = ["audio", "call_tool_result", "embedded_resource", "image", "resource_link", "text"]

_EXTRAS: Final = ExtraKeywords.__optional_keys__


def _block_extras(block: JSONObject, extras: ExtraKeywords, where: str) -> JSONObject:
    """Add the ``annotations`` and ``_meta`` every content block may carry (``where``: the
    builder, named when a keyword is misspelt)."""
    if extras:  # most blocks carry neither
        put(block, "annotations", copy_mapping(extras.pop("annotations", None)))
        put(block, "_meta", copy_mapping(extras.pop("meta", None)))
        if extras:  # what is left (the call's own dict) was not declared
            check_keywords(extras, _EXTRAS, where)
    return block


def _media(kind: str, data: bytes | str, mime_type: str, extras: ExtraKeywords) -> JSONObject:
    """An ``ImageContent`` or ``AudioContent`` block (``kind`` is ``"image"`` or ``"audio"``)."""
    block = {"type": kind, "data": to_base64(data, f"{kind} data"), "mimeType": mime_type}
    return _block_extras(block, extras, kind)


# --------------------------------------------------------------------------- content blocks


def text(text: str, **extras: Unpack[ExtraKeywords]) -> JSONObject:
    """Build a ``TextContent`` block.

    Args:
        text: The text.
        **extras: The optional ``annotations`` and ``meta`` (:class:`ExtraKeywords`), as
            every content block builder here takes them.

    Returns:
        ``{"type": "text", "text": ...}`` plus the optional keys that were given.

    Raises:
        TypeError: A keyword :class:`ExtraKeywords` does not declare.
    """
    return _block_extras({"type": "text", "text": text}, extras, "text")


def image(data: bytes | str, mime_type: str, **extras: Unpack[ExtraKeywords]) -> JSONObject:
    """Build an ``ImageContent`` block.

    Args:
        data: Raw image bytes (base64-encoded here) or a str that already is standard base64.
        mime_type: The image MIME type, e.g. ``"image/png"``; sent as ``mimeType``.
        **extras: The optional ``annotations`` and ``meta`` (:class:`ExtraKeywords`).

    Returns:
        ``{"type": "image", "data": ..., "mimeType": ...}`` plus the optional keys given.

    Raises:
        ValueError: ``data`` is a str that is not valid base64.
        TypeError: ``data`` is neither bytes nor str, or a keyword is not one of
            :class:`ExtraKeywords`.
    """
    return _media("image", data, mime_type, extras)


def audio(data: bytes | str, mime_type: str, **extras: Unpack[ExtraKeywords]) -> JSONObject:
    """Build an ``AudioContent`` block: :func:`image` for sound.

    ``{"type": "audio", "data": ..., "mimeType": ...}`` (``mime_type`` e.g. ``"audio/wav"``)
    plus the optional keys given; ``data``, ``extras`` and the errors raised as for
    :func:`image`.
    """
    return _media("audio", data, mime_type, extras)


def resource_link(uri: str, name: str, **fields: Unpack[ResourceKeywords]) -> JSONObject:
    """Build a ``ResourceLink`` block (a resource the client may read later).

    Args:
        uri: The resource URI.
        name: Programmatic name of the resource.
        **fields: The optional keywords of a listed resource (``resource_item``):
            ``title``, ``description``, ``mime_type``, ``size``, ``annotations``, ``icons``,
            ``meta`` (:class:`~genmcp.protocol.resources.ResourceKeywords`).

    Returns:
        ``{"type": "resource_link", "uri": ..., "name": ...}`` plus the optional keys given.

    Raises:
        TypeError: A keyword ``ResourceKeywords`` does not declare.
    """
    block: JSONObject = {"type": "resource_link", "uri": uri, "name": name}
    return described(block, fields, "resource_link")


def embedded_resource(
    uri: str,
    *,
    text: str | None = None,
    blob: bytes | str | None = None,
    mime_type: str | None = None,
    **extras: Unpack[ExtraKeywords],
) -> JSONObject:
    """Build an ``EmbeddedResource`` block carrying the resource contents inline.

    Args:
        uri: The resource URI.
        text: The contents as text; give exactly one of ``text`` and ``blob``.
        blob: The contents as bytes (base64-encoded here) or as a standard base64 str.
        mime_type: Optional MIME type of the contents; sent as ``resource.mimeType``.
        **extras: The optional ``annotations`` and ``meta`` of the block (not of the inner
            contents; :class:`ExtraKeywords`).

    Returns:
        ``{"type": "resource", "resource": {"uri": ..., "text" | "blob": ...}}`` plus the
        optional keys given.

    Raises:
        ValueError: Both or neither of ``text`` and ``blob`` were given, or ``blob`` is a str
            that is not valid base64.
        TypeError: A keyword :class:`ExtraKeywords` does not declare.
    """
    if (text is None) == (blob is None):
        raise ValueError("embedded_resource needs exactly one of text= or blob=")
    contents: JSONObject = {"uri": uri}
    put(contents, "mimeType", mime_type)
    if blob is not None:
        contents["blob"] = to_base64(blob, "resource blob")
    else:
        contents["text"] = text
    return _block_extras({"type": "resource", "resource": contents}, extras, "embedded_resource")


# --------------------------------------------------------------------------- results


def call_tool_result(
    *,
    text: str | None = None,
    error: str | None = None,
    structured: JSON | BaseModel = None,
    content: Iterable[Mapping[str, Any]] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a ``CallToolResult`` without ``resultType`` (the Suite adds it).

    Content blocks come in this order: the ``error`` message, then ``text`` (or the JSON text
    mirror of ``structured``), then the given ``content`` blocks.

    Args:
        text: A message for the model, as one text block.
        error: A tool-level error the model should read: sets ``isError: true`` and adds the
            message as the first text block. May be combined with ``text``.
        structured: Any JSON value except ``None`` (``None`` means unset), or a pydantic
            model (dumped in JSON mode, by alias), sent as ``structuredContent``. Unless
            ``text`` is given, it is also mirrored as a compact JSON text block, as the spec
            recommends.
        content: Further content blocks, appended in order.
        meta: Optional ``_meta`` object of the result.

    Returns:
        ``{"content": [...]}`` (always present, possibly empty) plus ``structuredContent``,
        ``isError`` (only when ``error`` was given) and ``_meta`` when set.

    Raises:
        ValueError: ``structured`` holds NaN or an infinity (not JSON).
        TypeError: ``structured`` is not JSON-serializable.
    """
    if structured is not None and isinstance(structured, BaseModel):  # (ABC check: skipped)
        structured = structured.model_dump(mode="json", by_alias=True)
    blocks: list[JSONObject] = []
    if error is not None:
        blocks.append({"type": "text", "text": error})
    if text is not None:
        blocks.append({"type": "text", "text": text})
    elif structured is not None:
        blocks.append({"type": "text", "text": compact_json(structured)})
    if content is not None:
        blocks.extend(dict(block) for block in content)
    result: JSONObject = {"content": blocks}
    # every tool's result is built here: the unset fields cost no call (the hot path)
    if structured is not None:
        result["structuredContent"] = structured
    if error is not None:
        result["isError"] = True
    if meta is not None:
        result["_meta"] = dict(meta)
    return result
