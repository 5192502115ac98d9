"""What a failed client request raises: ``ClientError`` and its JSON-RPC twin ``RPCError``.

* ``ClientError``: the server could not be reached or understood (refused connection,
  timeout, an HTTP error page, a stream that ended without a response). ``status`` is the
  HTTP status when there was one; ``www_authenticate`` the challenge of a 401/403.
* ``RPCError(ClientError)``: the server answered with a JSON-RPC error; ``code``,
  ``message`` and ``data`` are the error's, unchanged, so a proxy can pass it on as it is.

Messages are for a person: they name the URL or the command, and say what to do when the
fix is on the caller's side. Imports nothing from genmcp.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

__all__ = ["ClientError", "RPCError"]


class ClientError(Exception):
    """Raised when the server cannot be reached or understood; the message says why."""

    def __init__(
        self, message: str, *, status: int | None = None, www_authenticate: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.www_authenticate = www_authenticate


class RPCError(ClientError):
    """Raised when the server answers a request with a JSON-RPC error.

    ``str(error)`` is ``"<message> (<code>)"``; :meth:`to_error` gives the error object back
    in its wire shape.
    """

    def __init__(
        self, code: int, message: str, data: Any = None, *, status: int | None = None
    ) -> None:
        super().__init__(f"{message} ({code})", status=status)
        self.code = code
        self.message = message
        self.data = data

    @classmethod
    def from_error(cls, error: Any, *, status: int | None = None) -> Self:
        """The exception for a response's ``error`` member (a malformed one included)."""
        if not isinstance(error, Mapping):
            return cls(-32603, f"malformed JSON-RPC error {error!r}", status=status)
        code = error.get("code")
        message = error.get("message")
        return cls(
            code if isinstance(code, int) and not isinstance(code, bool) else -32603,
            message if isinstance(message, str) else "error",
            error.get("data"),
            status=status,
        )

    def to_error(self) -> dict[str, Any]:
        """The JSON-RPC error object (``code``, ``message``, ``data`` when present)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error
