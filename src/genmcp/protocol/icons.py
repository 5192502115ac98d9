"""Icons: the ``Icon`` objects of serverInfo, tools, prompts, resources and templates.

:func:`checked_icons` validates a list of icons once, when a Suite is built, so a broken
icon fails at startup with the owner's name rather than reaching a client. The rules come
from the ``Icon`` definition of the 2025-11-25 and 2026-07-28 schemas:

* ``src`` (required): an ``https:`` URL with a host, or a ``data:`` URI carrying base64
  image data (``data:image/png;base64,...``); other schemes (``http:``, ``javascript:``,
  ``file:``) are refused, since clients fetch or render the icon.
* ``mimeType``: an ``image/<subtype>`` type; for a ``data:`` URI it must match the URI's.
* ``sizes``: strings ``WxH`` (positive integers) or ``any``.
* ``theme``: ``"light"`` or ``"dark"``.

No other keys: a typo (``mime_type``) is an error, not a silently dropped field.

Pure: no I/O; imports nothing from genmcp.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = ["ICON_KEYS", "checked_icons"]

ICON_KEYS: Final = ("src", "mimeType", "sizes", "theme")
_THEMES: Final = ("light", "dark")
_MIME: Final = re.compile(r"image/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}")
_SIZE: Final = re.compile(r"[1-9][0-9]{0,4}x[1-9][0-9]{0,4}")
_DATA: Final = re.compile(r"data:(image/[A-Za-z0-9!#$&^_.+-]+)(;[^,;]+=[^,;]*)*;base64,(.*)", re.S)


def checked_icons(icons: Any, owner: str) -> list[dict[str, Any]] | None:
    """``icons`` validated and copied (None stays None); ``ValueError`` naming ``owner``."""
    if icons is None:
        return None
    if isinstance(icons, (str, bytes)) or not isinstance(icons, Sequence):
        raise ValueError(f"{owner}: icons must be a list of Icon objects, not {icons!r}")
    return [_icon(icon, f"{owner}: icons[{index}]") for index, icon in enumerate(icons)]


def _icon(icon: Any, where: str) -> dict[str, Any]:
    if not isinstance(icon, Mapping):
        raise ValueError(f"{where} must be an object with src (and mimeType, sizes, theme)")
    unknown = sorted(str(key) for key in icon if key not in ICON_KEYS)
    if unknown:
        raise ValueError(
            f"{where} has unknown key(s) {', '.join(unknown)}; known: {', '.join(ICON_KEYS)}"
        )
    data_type = _src(icon.get("src"), where)
    mime = icon.get("mimeType")
    if mime is not None:
        if not isinstance(mime, str) or not _MIME.fullmatch(mime):
            raise ValueError(f"{where}.mimeType must be an image/<subtype> type, not {mime!r}")
        if data_type is not None and mime.lower() != data_type.lower():
            raise ValueError(f"{where}.mimeType {mime!r} contradicts its data: URI ({data_type})")
    sizes = icon.get("sizes")
    if sizes is not None:
        if isinstance(sizes, str) or not isinstance(sizes, Sequence):
            raise ValueError(f"{where}.sizes must be a list such as ['48x48', 'any']")
        for size in sizes:
            if not isinstance(size, str) or not (size == "any" or _SIZE.fullmatch(size)):
                raise ValueError(f"{where}.sizes entry {size!r} is neither WxH nor 'any'")
    theme = icon.get("theme")
    if theme is not None and theme not in _THEMES:
        raise ValueError(f"{where}.theme must be 'light' or 'dark', not {theme!r}")
    copied = dict(icon)
    if sizes is not None:
        copied["sizes"] = list(sizes)
    return copied


def _src(src: Any, where: str) -> str | None:
    """Check ``src``; return the MIME type of a ``data:`` URI, None for an https URL."""
    if not isinstance(src, str) or not src:
        raise ValueError(f"{where} needs src: an https: URL or a data: URI")
    if src[:5].lower() == "data:":
        found = _DATA.fullmatch(src)
        if found is None:
            raise ValueError(f"{where}.src: a data: URI must be data:image/<type>;base64,<data>")
        try:
            base64.b64decode(found.group(3), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{where}.src: the data: URI's base64 does not decode") from None
        return found.group(1)
    parts = urlsplit(src)
    if parts.scheme.lower() != "https" or not parts.hostname:
        raise ValueError(f"{where}.src must use https: (with a host) or data:, not {src[:80]!r}")
    if any(ch.isspace() for ch in src):
        raise ValueError(f"{where}.src must not contain whitespace")
    return None
