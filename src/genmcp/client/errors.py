"""What a failed client request raises: ``ClientError`` and its JSON-RPC twin ``RPCError``.

* ``ClientError``: the server could not be reached or understood (refused connection,
  timeout, an HTTP error page, a stream that ended without a response). ``status`` is the
  HTTP status when there was one; ``www_authenticate`` the challenge of a 401/403.
* ``RPCError(ClientError)``: the server answered with a JSON-RPC error; ``code``,
  ``message`` and ``data`` are the error's, unchanged, so a proxy can pass it on as it is.
  The one class for it: ``genmcp.testing``'s test client raises it too (with
  ``notifications``, what the server sent on the request before the error).
* A bound of ``ClientLimits`` (``genmcp.client.limits``) crossed: ``MessageTooLarge`` (a
  response, an SSE event or a stdio line over ``max_message_bytes``), ``ListingTooLong``
  (more pages or items than ``max_pages``/``max_items``), ``DeadlineExceeded`` (the call
  outlived ``deadline_s``); each ``LimitExceeded``, whose ``limit`` names the setting.
* ``ResponseMismatch``: the answer to a request was not its response (another id).
* A skill file that is not what its entry promised (``genmcp.client.skills``, SEP-2640):
  ``SkillVerificationError`` (``uri``), as ``DigestMismatch``, ``SizeMismatch``,
  ``FrontmatterMismatch`` or ``UnlistedSkillFile``; ``SkillTooLarge``, a manifest past the
  bounds the client accepts.

Messages are for a person: they name the URL or the command, and say what to do when the
fix is on the caller's side. Imports nothing from genmcp.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

__all__ = [
    "ClientError",
    "DeadlineExceeded",
    "DigestMismatch",
    "FrontmatterMismatch",
    "LimitExceeded",
    "ListingTooLong",
    "MessageTooLarge",
    "RPCError",
    "ResponseMismatch",
    "SizeMismatch",
    "SkillTooLarge",
    "SkillVerificationError",
    "UnlistedSkillFile",
]


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
    in its wire shape. ``notifications`` are the messages the server sent on the request
    before the error, where the raiser kept them (``genmcp.testing``'s ``MCPTestClient``
    does; empty otherwise).
    """

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        status: int | None = None,
        notifications: Sequence[dict[str, Any]] = (),
    ) -> None:
        super().__init__(f"{message} ({code})", status=status)
        self.code = code
        self.message = message
        self.data = data
        self.notifications: list[dict[str, Any]] = list(notifications)

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


class LimitExceeded(ClientError):
    """The server crossed one of the client's bounds; ``limit`` names the ``ClientLimits``
    setting (``"max_message_bytes"``...) and ``value`` its value."""

    def __init__(self, message: str, limit: str, value: float) -> None:
        super().__init__(message)
        self.limit, self.value = limit, value


class MessageTooLarge(LimitExceeded):
    """A response body, an SSE event or a stdio line longer than ``max_message_bytes``."""


class ListingTooLong(LimitExceeded):
    """A listing that went on past ``max_pages`` pages or ``max_items`` items."""


class DeadlineExceeded(LimitExceeded):
    """A call (every page of a listing, every resumption of a stream) that outlived
    ``deadline_s``: a server that drips, or never ends its stream."""


class ResponseMismatch(ClientError):
    """The server answered a request with a message that is not its response (another
    request's id): taking it as the result would hand one caller another's answer."""


class SkillVerificationError(ClientError):
    """A skill file is not what the skill's entry promised (SEP-2640 verification on read):
    its content was not used. ``uri`` is the file's; fetch a fresh entry (``skills/get``)
    and load the skill again if it changed on the server."""

    def __init__(self, message: str, uri: str) -> None:
        super().__init__(message)
        self.uri = uri


class DigestMismatch(SkillVerificationError):
    """The file's ``sha256`` digest is not its manifest entry's ``digest``."""


class SizeMismatch(SkillVerificationError):
    """The file's byte length is not its manifest entry's ``size`` (checked before the
    digest: the same failure, found without hashing)."""


class FrontmatterMismatch(SkillVerificationError):
    """A fetched ``SKILL.md``'s YAML frontmatter differs from the entry's ``frontmatter``
    (or cannot be read): the skill is not loaded."""


class UnlistedSkillFile(SkillVerificationError):
    """A file inside the skill that its manifest does not list: not fetched, since nothing
    could verify it."""


class SkillTooLarge(ClientError):
    """A skill whose manifest lists more files or bytes than the client accepts
    (``limit`` names the bound, ``value`` its value); nothing of it was fetched."""

    def __init__(self, message: str, limit: str, value: int) -> None:
        super().__init__(message)
        self.limit, self.value = limit, value
