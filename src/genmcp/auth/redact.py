"""A logging filter that keeps bearer tokens sent in a query string out of access logs.

genmcp never reads a token from the query string, but uvicorn's access log prints the
request line, query included. ``logging.getLogger("uvicorn.access").addFilter(
QueryTokenFilter())`` rewrites ``access_token=...`` (and ``token=``, ``id_token=``,
``refresh_token=``) to ``access_token=[redacted]`` in every record before it is written.

Pure: no asyncio, no web framework.
"""

from __future__ import annotations

import logging
import re
from typing import Final

__all__ = ["QueryTokenFilter", "redact_query"]

_SECRET_PARAM: Final = re.compile(
    r"((?:^|[?&;])(?:access_token|id_token|refresh_token|token)=)[^&;\s\"]*", re.I
)


def redact_query(text: str) -> str:
    """``text`` with the values of token-carrying query parameters replaced."""
    return _SECRET_PARAM.sub(r"\1[redacted]", text)


class QueryTokenFilter(logging.Filter):
    """Redacts token query parameters in a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_query(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_query(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        return True
