"""A small incremental parser for `text/event-stream` bodies, written from the WHATWG rules.

Owns: bytes in, events and comments out, in wire order. Lines end in CRLF, LF or CR; a
blank line dispatches the event; `data:` lines join with "\\n"; a line starting with ":"
is a comment (keep-alives); an unfinished event at end of stream is dropped. Unlike a
browser it also reports events that carry only `id:`, `retry:` or `event:` (data ""), so
tests can see everything a server sent. Pure: no I/O.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

_END_OF_LINE: Final = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


@dataclass(frozen=True)
class SSEComment:
    """A comment line: the text after ":" with one leading space removed."""

    text: str


class SSEParser:
    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent | SSEComment]:
        """Parse one chunk; return what it completed."""
        text = self._pending + self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        out: list[SSEEvent | SSEComment] = []
        start = 0
        for match in _END_OF_LINE.finditer(text):
            if match.group() == "\r" and match.end() == len(text):
                break  # maybe the first half of a CRLF split across chunks
            item = self._line(text[start : match.start()])
            if item is not None:
                out.append(item)
            start = match.end()
        self._pending = text[start:]
        return out

    def close(self) -> list[SSEEvent | SSEComment]:
        """End of stream: a lone trailing CR still ends its line; an open event is dropped."""
        text = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        item = self._line(text[:-1]) if text.endswith("\r") else None
        return [] if item is None else [item]

    def _line(self, line: str) -> SSEEvent | SSEComment | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return SSEComment(line[1:].removeprefix(" "))
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event, event_id, retry = self._data, self._event, self._id, self._retry
        self._data, self._event, self._id, self._retry = [], "", None, None
        if not data and not event and event_id is None and retry is None:
            return None
        return SSEEvent("\n".join(data), event or "message", event_id, retry)


async def read_items(chunks: AsyncIterator[bytes], count: int) -> list[SSEEvent | SSEComment]:
    """The first ``count`` (or more, from the last chunk) items of a body read chunk by chunk."""
    parser, items = SSEParser(), []
    async for chunk in chunks:
        items += parser.feed(chunk)
        if len(items) >= count:
            break
    return items
