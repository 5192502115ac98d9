"""Builders for the MCP 2026-07-28 resource shapes: listings, templates, contents, results.

The companions of :mod:`genmcp.protocol.v2607` for ``resources/list``,
``resources/templates/list`` and ``resources/read``. The optional keys a ``Resource``, a
``ResourceTemplate`` and a ``ResourceLink`` share are declared once,
:class:`DescriptionKeywords` (and :class:`ResourceKeywords`, with ``size``), and written by
:func:`described`. Conventions in
:mod:`genmcp.protocol.shapes`; ``resultType``, cache hints the repo did not choose and the
server ``_meta`` are added by the Suite, not here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, Unpack

from genmcp.protocol.shapes import (
    ExtraKeywords,
    JSONObject,
    check_keywords,
    copy_mapping,
    put,
    to_base64,
)

__all__ = [
    "DescriptionKeywords",
    "ResourceKeywords",
    "blob_contents",
    "read_resource_result",
    "resource_item",
    "resource_template",
    "text_contents",
]


def text_contents(
    uri: str,
    text: str,
    *,
    mime_type: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build ``TextResourceContents``: one text part of a ``resources/read`` result.

    Args:
        uri: The URI of the resource (or sub-resource) this text is.
        text: The text.
        mime_type: Optional MIME type, e.g. ``"text/markdown"``; sent as ``mimeType``.
        meta: Optional ``_meta`` object.

    Returns:
        ``{"uri": ..., "text": ...}`` plus the optional keys given.
    """
    contents: JSONObject = {"uri": uri}
    put(contents, "mimeType", mime_type)
    contents["text"] = text
    put(contents, "_meta", copy_mapping(meta))
    return contents


def blob_contents(
    uri: str,
    blob: bytes | str,
    *,
    mime_type: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build ``BlobResourceContents``: one binary part of a ``resources/read`` result.

    Args:
        uri: The URI of the resource (or sub-resource) these bytes are.
        blob: Raw bytes (base64-encoded here) or a str that already is standard base64.
        mime_type: Optional MIME type, e.g. ``"image/png"``; sent as ``mimeType``.
        meta: Optional ``_meta`` object.

    Returns:
        ``{"uri": ..., "blob": ...}`` plus the optional keys given.

    Raises:
        ValueError: ``blob`` is a str that is not valid base64.
        TypeError: ``blob`` is neither bytes nor str.
    """
    contents: JSONObject = {"uri": uri}
    put(contents, "mimeType", mime_type)
    contents["blob"] = to_base64(blob, "resource blob")
    put(contents, "_meta", copy_mapping(meta))
    return contents


def read_resource_result(
    contents: Mapping[str, Any] | Iterable[Mapping[str, Any]],
    *,
    ttl_ms: int | None = None,
    cache_scope: Literal["public", "private"] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> JSONObject:
    """Build a ``ReadResourceResult`` without ``resultType`` (the Suite adds it).

    Args:
        contents: One contents object (:func:`text_contents`, :func:`blob_contents`) or
            several; never empty (a missing resource is ``ResourceNotFound``, not an empty
            result).
        ttl_ms: How long the client may cache this result (ms); give it with ``cache_scope``
            to override the repo's ``cache_control`` for this one read.
        cache_scope: ``"public"`` or ``"private"``.
        meta: Optional ``_meta`` object of the result.

    Returns:
        ``{"contents": [...]}`` plus ``ttlMs``/``cacheScope``/``_meta`` when given.

    Raises:
        ValueError: ``contents`` is empty, or only one of ``ttl_ms`` and ``cache_scope`` given.
    """
    parts = [dict(contents)] if isinstance(contents, Mapping) else [dict(c) for c in contents]
    if not parts:
        raise ValueError("a resources/read result needs at least one contents object")
    if (ttl_ms is None) != (cache_scope is None):
        raise ValueError("give ttl_ms and cache_scope together (or neither)")
    result: JSONObject = {"contents": parts}
    put(result, "ttlMs", ttl_ms)
    put(result, "cacheScope", cache_scope)
    put(result, "_meta", copy_mapping(meta))
    return result


class DescriptionKeywords(ExtraKeywords, total=False):
    """The optional keywords that describe a ``ResourceTemplate`` (:func:`resource_template`),
    and with ``size`` (:class:`ResourceKeywords`) a ``Resource`` and a ``ResourceLink``;
    ``annotations`` and ``meta`` as every content block (:class:`ExtraKeywords`).

    Attributes:
        title: Human-readable title (``name`` is the display fallback without it).
        description: Description, a hint for the model.
        mime_type: MIME type (of every resource a template names); sent as ``mimeType``.
        icons: ``Icon`` objects (``src``, ``mimeType?``, ``sizes?``, ``theme?``).
    """

    title: str | None
    description: str | None
    mime_type: str | None
    icons: Sequence[Mapping[str, Any]] | None


class ResourceKeywords(DescriptionKeywords, total=False):
    """The optional keywords of a ``Resource`` (:func:`resource_item`) and a ``ResourceLink``
    (``resource_link``): :class:`DescriptionKeywords` and the size.

    Attributes:
        size: Size of the raw content in bytes.
    """

    size: int | None


def resource_item(uri: str, name: str, **fields: Unpack[ResourceKeywords]) -> JSONObject:
    """Build a ``Resource``: one entry of ``resources/list``.

    Args:
        uri: The resource URI.
        name: Programmatic name (also the display fallback when ``title`` is absent).
        **fields: The optional :class:`ResourceKeywords` (``title``, ``description``,
            ``mime_type``, ``size``, ``annotations``, ``icons``, ``meta``).

    Returns:
        ``{"uri": ..., "name": ...}`` plus the optional keys given.

    Raises:
        TypeError: A keyword :class:`ResourceKeywords` does not declare.
    """
    return described({"uri": uri, "name": name}, fields, "resource_item")


def resource_template(
    uri_template: str, name: str, **fields: Unpack[DescriptionKeywords]
) -> JSONObject:
    """Build a ``ResourceTemplate``: one entry of ``resources/templates/list``.

    Args:
        uri_template: An RFC 6570 template, e.g. ``"test://template/{id}/data"``.
        name: Programmatic name.
        **fields: The optional :class:`DescriptionKeywords` (``title``, ``description``,
            ``mime_type``, ``annotations``, ``icons``, ``meta``); no ``size``.

    Returns:
        ``{"uriTemplate": ..., "name": ...}`` plus the optional keys given.

    Raises:
        TypeError: A keyword :class:`DescriptionKeywords` does not declare.
    """
    item: JSONObject = {"uriTemplate": uri_template, "name": name}
    return described(item, fields, "resource_template", _DESCRIPTION)


_DESCRIPTION: Final = DescriptionKeywords.__optional_keys__
_RESOURCE: Final = ResourceKeywords.__optional_keys__


def described(
    item: JSONObject,
    fields: Mapping[str, Any],
    where: str,
    declared: frozenset[str] = _RESOURCE,
) -> JSONObject:
    """Add to ``item`` the optional keys of ``fields`` that are set, after refusing a keyword
    not ``declared`` (``where`` names the builder in the ``TypeError``)."""
    check_keywords(fields, declared, where)
    put(item, "title", fields.get("title"))
    put(item, "description", fields.get("description"))
    put(item, "mimeType", fields.get("mime_type"))
    put(item, "size", fields.get("size"))
    put(item, "annotations", copy_mapping(fields.get("annotations")))
    icons = fields.get("icons")
    put(item, "icons", None if icons is None else [dict(icon) for icon in icons])
    put(item, "_meta", copy_mapping(fields.get("meta")))
    return item
