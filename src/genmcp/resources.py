"""The ResourceRepo behaviour: resources served under a URI prefix or template, and outcomes.

A repository is a subclass of ``ResourceRepo`` configured with class keyword options, in the
spirit of GenMCP's ``GenMCP.Suite.ResourceRepo``: it owns every URI under ``prefix=`` (or
matching the RFC 6570 level-1 ``template=``), lists what it has (``list``), reads one resource
(``read``), and may complete template variables (``complete``). Every hook receives the
provider argument ``arg`` last: ``resources=[(FilesRepo, "/srv/docs")]``; a bare class means
``arg=None``. One instance serves all requests of one provider.

``read`` returns a ``str`` (text), ``bytes`` (a blob), a pydantic model (JSON),
``Result(read_resource_result(...))`` (cache hints, several contents), ``InputRequired(
requests, state)``, ``Error(...)`` or ``ResourceNotFound()``; anything else raises
``CallbackReturnError``. ``@resource(uri)`` (``genmcp.functions``) writes the class from a
function.
``StaticResource(...)`` is the convenience for fixed resources: no class needed.

Imports asyncio-free genmcp modules (behaviour, outcomes, protocol builders); never a web
framework.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from genmcp.behaviour import Behaviour, Completion, Hooked
from genmcp.outcomes import (
    CacheControl,
    Error,
    HookRequest,
    InputRequired,
    ResourceNotFound,
    Result,
)
from genmcp.protocol.icons import checked_icons
from genmcp.protocol.resources import (
    blob_contents,
    read_resource_result,
    resource_item,
    resource_template,
    text_contents,
)
from genmcp.protocol.uri_template import UriTemplate

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = [
    "ListPage",
    "ReadOutcome",
    "ResourceRepo",
    "ResourceRequest",
    "StaticResource",
]

_OPTION_KEYS = (
    "prefix",
    "template",
    "name",
    "title",
    "description",
    "mime_type",
    "annotations",
    "icons",
    "meta",
    "cache_control",
    "scopes",
)

ListPage = tuple[Sequence[Mapping[str, Any]], Any]
"""What ``list`` returns: ``(items, next_cursor)``; ``next_cursor`` None on the last page."""
Descriptors = list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ResourceRequest(HookRequest):
    """What ``read`` receives for one ``resources/read``.

    Attributes:
        uri: the URI the client asked for.
        params: what ``parse_uri`` found in it: the template variables (percent-decoded),
            ``{}`` for a prefix repository.
        meta, input_responses, request_state: ``HookRequest``'s (keyword-only).
    """

    uri: str
    params: Mapping[str, Any]


ReadOutcome = Result | InputRequired | Error | ResourceNotFound


@functools.lru_cache(maxsize=256)
def _compiled(template: str) -> UriTemplate:
    return UriTemplate.parse(template)


class ResourceRepo(Behaviour):
    """Base class of every resource repository; subclass it with keyword options.

    Options: ``prefix=`` (every URI starting with it) or ``template=`` (an RFC 6570 level-1
    template such as ``"test://template/{id}/data"``); with a template, ``name=`` (required),
    ``title=``, ``description=``, ``mime_type=``, ``annotations=``, ``icons=`` and ``meta=``
    describe it in ``resources/templates/list``; ``cache_control=("public", ttl_ms)``.

    Example::

        class Items(ResourceRepo, template="items://{id}", name="item", mime_type="text/plain"):
            async def read(self, request, channel, arg):
                item = arg.get(request.params["id"])
                if item is None:
                    return ResourceNotFound()
                return Result(read_resource_result(text_contents(request.uri, item)))

    Hooks may be ``async def`` or plain ``def`` (run in a worker thread).
    """

    kind: ClassVar[str] = "resource"
    option_keys: ClassVar[tuple[str, ...]] = _OPTION_KEYS

    # -- routing hooks (called when the Suite is built, or per request for parse_uri) ----

    def prefix(self, arg: Any) -> str | None:
        """The URI prefix this repository owns (the ``prefix=`` option), or None."""
        prefix: str | None = self.option("prefix")
        return prefix

    def template(self, arg: Any) -> str | None:
        """The level-1 URI template this repository owns (the ``template=`` option), or None."""
        template: str | None = self.option("template")
        return template

    def templates(self, arg: Any) -> Descriptors:
        """The ``ResourceTemplate`` entries of ``resources/templates/list``.

        Defaults to one entry built from the ``template=`` option and the descriptive
        options; none for a prefix repository. Called once when the Suite is built.
        """
        template = self.template(arg)
        if template is None:
            return []
        options = self._genmcp_options
        return [
            resource_template(
                template,
                options.get("name") or "",
                title=options.get("title"),
                description=options.get("description"),
                mime_type=options.get("mime_type"),
                annotations=options.get("annotations"),
                icons=checked_icons(options.get("icons"), type(self).__qualname__),
                meta=options.get("meta"),
            )
        ]

    def parse_uri(self, uri: str, arg: Any) -> Mapping[str, Any] | None:
        """Whether ``uri`` is this repository's, and what ``read`` needs from it.

        Returns the ``request.params`` for ``read`` (the template variables, or ``{}`` for
        a prefix), or None when the URI is not this repository's (the client then gets
        "resource not found"). Override it to route or decode URIs your own way; it runs on
        the event loop for every read, so keep it quick and free of I/O.
        """
        template = self.template(arg)
        if template is not None:
            return _compiled(template).match(uri)
        prefix = self.prefix(arg)
        return {} if prefix is not None and uri.startswith(prefix) else None

    def required_scopes(self, arg: Any) -> tuple[str, ...]:
        """The OAuth scopes a caller needs to read its URIs (``scopes=`` option)."""
        return tuple(self.option("scopes") or ())

    def cache_control(self, arg: Any) -> CacheControl:
        """How long reads and listings may be cached: ``("public"|"private", ttl_ms)``.

        A read result built with ``read_resource_result(..., ttl_ms=, cache_scope=)``
        overrides it for that read. Defaults to the ``cache_control=`` option, else private, 0.
        """
        option: CacheControl | None = self.option("cache_control")
        return ("private", 0) if option is None else option

    # -- request hooks -----------------------------------------------------------------

    def list(self, cursor: Any, channel: Channel, arg: Any) -> Hooked[ListPage]:
        """Return one page of ``resources/list``: ``(items, next_cursor)``.

        ``cursor`` is None for this repository's first page, else the ``next_cursor`` it
        returned before (any JSON value; genmcp seals it, so clients cannot forge it). Build
        items with ``resource_item(uri, name, ...)``. Defaults to nothing listed.
        """
        return [], None

    def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> Hooked[ReadOutcome]:
        """Read one resource. Must be overridden.

        Return a ``str`` (text), ``bytes`` (a blob) or a pydantic model (JSON), each with
        the ``mime_type=`` option; ``Result(read_resource_result(contents))`` for cache
        hints or several contents; ``ResourceNotFound()``,
        ``InputRequired(requests, state)`` to ask the client first, or ``Error`` for a
        protocol error. Raising answers -32603 and logs the traceback.
        """
        raise TypeError(f"{type(self).__qualname__} must implement read()")

    def complete(
        self, argument: str, value: str, context: Mapping[str, str], channel: Channel, arg: Any
    ) -> Hooked[Completion]:
        """Complete the template variable ``argument`` from its partial ``value``.

        ``context`` holds the variables the client already resolved; ``channel`` is the request's
        (``channel.state``, ``channel.assigns``). The older ``complete(self, argument, value,
        context, arg)``, without the channel, still works. Return the matching
        values (best first; genmcp sends at most 100, with ``total`` and ``hasMore``), or a
        ``complete_result(...)``. Repositories that do not override it offer no completions.
        """
        return []

    def complete_template(
        self,
        template: str,
        argument: str,
        value: str,
        context: Mapping[str, str],
        channel: Channel,
        arg: Any,
    ) -> Hooked[Completion]:
        """Complete ``argument`` of ``template``, one of the templates this repository
        describes (``templates()``); returns what ``complete`` does.

        Override it instead of ``complete`` when the repository serves several templates and
        the completion depends on which (a remote mount's repository: the template goes
        upstream). Defaults to nothing: ``complete`` is called instead.
        """
        return []


@dataclass(frozen=True, slots=True)
class StaticResource:
    """A fixed resource, listed and read without writing a class.

    Give exactly one of ``text`` and ``blob`` (bytes, or a base64 str).

    Example: ``StaticResource(uri="test://static-text", name="hello", text="Hello!",
    mime_type="text/plain")`` in ``resources=[...]``.
    """

    uri: str
    name: str
    text: str | None = None
    blob: bytes | str | None = None
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    annotations: Mapping[str, Any] | None = None
    icons: Sequence[Mapping[str, Any]] | None = None
    meta: Mapping[str, Any] | None = None
    cache_control: CacheControl | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.uri, str) or not self.uri:
            raise ValueError(f"StaticResource needs a non-empty uri, not {self.uri!r}")
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"StaticResource {self.uri!r} needs a non-blank name")
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"StaticResource {self.uri!r} needs exactly one of text= or blob=")
        self.contents()  # a bad blob fails here, not at the first read
        checked_icons(self.icons, f"StaticResource {self.uri!r}")

    def item(self) -> dict[str, Any]:
        """Its ``resources/list`` entry (with ``size`` in bytes)."""
        raw = self.text.encode("utf-8") if self.text is not None else None
        size = len(raw) if raw is not None else _blob_size(self.contents()["blob"])
        return resource_item(
            self.uri,
            self.name,
            title=self.title,
            description=self.description,
            mime_type=self.mime_type,
            size=size,
            annotations=self.annotations,
            icons=self.icons,
            meta=self.meta,
        )

    def contents(self) -> dict[str, Any]:
        """Its contents object (text or base64 blob)."""
        if self.text is not None:
            return text_contents(self.uri, self.text, mime_type=self.mime_type)
        assert self.blob is not None
        return blob_contents(self.uri, self.blob, mime_type=self.mime_type)

    def read_result(self) -> dict[str, Any]:
        """Its ``resources/read`` result, with its own cache hint when it has one."""
        if self.cache_control is None:
            return read_resource_result(self.contents())
        scope, ttl = self.cache_control
        return read_resource_result(self.contents(), ttl_ms=ttl, cache_scope=scope)


def _blob_size(encoded: str) -> int:
    padding = len(encoded) - len(encoded.rstrip("="))
    return len(encoded) * 3 // 4 - padding
