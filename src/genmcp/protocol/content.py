"""Builders for 2026-07-28 content blocks and ``CallToolResult``.

``text``, ``image``, ``audio``, ``resource_link`` and ``embedded_resource`` build the content
blocks a tool (or a prompt) answers with; ``call_tool_result`` wraps them into the result of
``tools/call``. Conventions in :mod:`genmcp.protocol.shapes`; re-exported by
:mod:`genmcp.protocol.v2607`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from genmcp.protocol.resources import described
from genmcp.protocol.shapes import JSON, JSONObject, compact_json, copy_mapping, put, to_base64

__all__ = ["audio", "call_tool_result", "embedded_resource", "image", "resource_link", "text"]


def _block_extras(
    block: JSONObject, annotations: Mapping[str, Any] | None, meta: Mapping[str, Any] | None
) -> JSONObject:
    """Add the ``annotations`` and ``_meta`` every content block may carry."""
    put(block, "annotations", copy_mapping(annotations))
    put(block, "_meta", copy_mapping(meta))
    return block


def _media(
    kind: str,
    data: bytes | str,
    mime_type: str,
    annotations: Mapping[str, Any] | None,
    meta: Mapping[str, Any] | None,
) -> JSONObject:
    """An ``ImageContent`` or ``AudioContent`` block (``kind`` is ``"image"`` or ``"audio"``)."""
    block = {"type": kind, "data": to_base64(data, f"{kind} data"), "mimeType": mime_type}
    return _block_extras(block, annotations, meta)


# --------------------------------------------------------------------------- content blocks


def text(
    text: str,
    *,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a ``TextContent`` block.

    Args:
        text: The text.
        annotations: Optional ``Annotations`` (``audience``, ``priority``, ``lastModified``).
        meta: Optional ``_meta`` object.

    Returns:
        ``{"type": "text", "text": ...}`` plus the optional keys that were given.
    """
    return _block_extras({"type": "text", "text": text}, annotations, meta)


def image(
    data: bytes | str,
    mime_type: str,
    *,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build an ``ImageContent`` block.

    Args:
        data: Raw image bytes (base64-encoded here) or a str that already is standard base64.
        mime_type: The image MIME type, e.g. ``"image/png"``; sent as ``mimeType``.
        annotations: Optional ``Annotations``.
        meta: Optional ``_meta`` object.

    Returns:
        ``{"type": "image", "data": ..., "mimeType": ...}`` plus the optional keys given.

    Raises:
        ValueError: ``data`` is a str that is not valid base64.
        TypeError: ``data`` is neither bytes nor str.
    """
    return _media("image", data, mime_type, annotations, meta)


def audio(
    data: bytes | str,
    mime_type: str,
    *,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build an ``AudioContent`` block: :func:`image` for sound.

    ``{"type": "audio", "data": ..., "mimeType": ...}`` (``mime_type`` e.g. ``"audio/wav"``)
    plus the optional keys given; ``data`` and the errors raised as for :func:`image`.
    """
    return _media("audio", data, mime_type, annotations, meta)


def resource_link(
    uri: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    icons: Sequence[Mapping[str, Any]] | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a ``ResourceLink`` block (a resource the client may read later).

    Args:
        uri: The resource URI.
        name: Programmatic name of the resource.
        title: Optional human-readable title.
        description: Optional description.
        mime_type: Optional MIME type; sent as ``mimeType``.
        size: Optional size of the raw content in bytes.
        icons: Optional list of ``Icon`` objects (``src``, ``mimeType?``, ``sizes?``, ``theme?``).
        annotations: Optional ``Annotations``.
        meta: Optional ``_meta`` object.

    Returns:
        ``{"type": "resource_link", "uri": ..., "name": ...}`` plus the optional keys given.
    """
    block: JSONObject = {"type": "resource_link", "uri": uri, "name": name}
    return described(block, title, description, mime_type, size, annotations, icons, meta)


def embedded_resource(
    uri: str,
    *,
    text: str | None = None,
    blob: bytes | str | None = None,
    mime_type: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build an ``EmbeddedResource`` block carrying the resource contents inline.

    Args:
        uri: The resource URI.
        text: The contents as text; give exactly one of ``text`` and ``blob``.
        blob: The contents as bytes (base64-encoded here) or as a standard base64 str.
        mime_type: Optional MIME type of the contents; sent as ``resource.mimeType``.
        annotations: Optional ``Annotations`` of the block.
        meta: Optional ``_meta`` of the block (not of the inner contents).

    Returns:
        ``{"type": "resource", "resource": {"uri": ..., "text" | "blob": ...}}`` plus the
        optional keys given.

    Raises:
        ValueError: Both or neither of ``text`` and ``blob`` were given, or ``blob`` is a str
            that is not valid base64.
    """
    if (text is None) == (blob is None):
        raise ValueError("embedded_resource needs exactly one of text= or blob=")
    contents: JSONObject = {"uri": uri}
    put(contents, "mimeType", mime_type)
    if blob is not None:
        contents["blob"] = to_base64(blob, "resource blob")
    else:
        contents["text"] = text
    return _block_extras({"type": "resource", "resource": contents}, annotations, meta)


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
