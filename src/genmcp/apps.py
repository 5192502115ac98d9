"""The AppView behaviour: an MCP Apps view (a ``ui://`` HTML resource) declared as a class.

An app view is a subclass of ``AppView`` configured with class keyword options, declared
beside the tool that shows it::

    class ChartView(AppView, uri="ui://sales/chart", name="sales_chart", html=CHART_HTML,
                    csp={"resource_domains": ["https://cdn.example.com"]},
                    prefers_border=True):
        pass

    class SalesChart(Tool, name="sales_chart", view=ChartView, ...): ...
    class Refresh(Tool, name="refresh_sales", view=ChartView, visibility=["app"], ...): ...

The Suite serves a view linked by a tool's ``view=`` by itself (listing it in
``resources=`` too is fine). It is listed in ``resources/list`` and read with
``resources/read`` like any resource: ``text/html;profile=mcp-app`` contents whose
``_meta.ui`` holds the CSP domains, permissions, dedicated domain and border preference of
the extension text (``genmcp.protocol.apps``). Options are checked when the class is
defined; errors name the class.

Imports asyncio-free genmcp modules (resource, outcomes, protocol); never a web framework.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

from genmcp.outcomes import CacheControl, Result
from genmcp.protocol.apps import APP_MIME_TYPE, check_ui_uri, resource_ui_meta
from genmcp.protocol.icons import checked_icons
from genmcp.protocol.resources import read_resource_result, resource_item, text_contents
from genmcp.resources import ListPage, ReadOutcome, ResourceRepo, ResourceRequest

if TYPE_CHECKING:
    from genmcp.channel import Channel

__all__ = ["AppView"]

_OPTION_KEYS: Final = (
    "uri",
    "name",
    "title",
    "description",
    "html",
    "csp",
    "permissions",
    "domain",
    "prefers_border",
    "icons",
    "meta",
    "cache_control",
    "scopes",
    "listed",
)
_UI_OPTIONS: Final = ("csp", "permissions", "domain", "prefers_border")


class AppView(ResourceRepo):
    """Base class of every MCP Apps view; subclass it with keyword options.

    Options: ``uri=`` (``ui://...``, required), ``name=`` (required), ``title=``,
    ``description=``, ``html=`` (the HTML5 document, or override :meth:`html`), ``csp=``
    (``connect_domains``, ``resource_domains``, ``frame_domains``, ``base_uri_domains``:
    origin lists), ``permissions=`` (``["camera", "microphone", "geolocation",
    "clipboard_write"]``), ``domain=``, ``prefers_border=``, ``icons=``, ``meta=`` (extra
    ``_meta`` keys), ``cache_control=`` (default ``("public", 300_000)``), ``scopes=``,
    ``listed=`` (False keeps it out of ``resources/list``; the extension allows that).
    """

    kind: ClassVar[str] = "app view"
    option_keys: ClassVar[tuple[str, ...]] = _OPTION_KEYS

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**options)
        owner = cls.__qualname__
        merged = cls._genmcp_options
        if "uri" in options:
            check_ui_uri(options["uri"], owner)
        if any(key in options for key in _UI_OPTIONS):
            _ui_of(merged, owner)
        if "icons" in options:
            checked_icons(options["icons"], owner)
        html = options.get("html")
        if html is not None and not isinstance(html, str):
            raise ValueError(f"{owner}: html= must be the HTML document as a str")

    # -- what the view is ----------------------------------------------------------------

    @classmethod
    def view_uri(cls) -> str:
        """The view's ``ui://`` URI (the ``uri=`` option); ``ValueError`` when it has none."""
        return check_ui_uri(cls._genmcp_options.get("uri"), cls.__qualname__)

    def html(self, arg: Any) -> Any:
        """The HTML5 document served (the ``html=`` option); may be ``async def``."""
        html = self.option("html")
        if html is None:
            raise TypeError(f"{type(self).__qualname__} needs html= or an html() hook")
        return html

    def ui(self, arg: Any) -> dict[str, Any]:
        """The ``_meta.ui`` object of the view (CSP, permissions, domain, prefersBorder)."""
        return _ui_of(self._genmcp_options, type(self).__qualname__)

    def cache_control(self, arg: Any) -> CacheControl:
        """How long hosts may cache the view (default public, 5 minutes)."""
        option: CacheControl | None = self.option("cache_control")
        return ("public", 300_000) if option is None else option

    # -- ResourceRepo hooks ------------------------------------------------------------

    def prefix(self, arg: Any) -> str | None:
        """The view's URI: the key it is served under (routing is exact, see parse_uri)."""
        return type(self).view_uri()

    def template(self, arg: Any) -> str | None:
        """Views have no template."""
        return None

    def templates(self, arg: Any) -> list[dict[str, Any]]:
        """Views add nothing to ``resources/templates/list``."""
        return []

    def parse_uri(self, uri: str, arg: Any) -> Mapping[str, Any] | None:
        """Only the view's own URI is its."""
        return {} if uri == type(self).view_uri() else None

    def list(self, cursor: Any, channel: Channel, arg: Any) -> ListPage:
        """The view's one ``resources/list`` entry (none when ``listed=False``)."""
        if self.option("listed") is False:
            return [], None
        return [self.item(arg)], None

    def item(self, arg: Any) -> dict[str, Any]:
        """The view's ``Resource`` entry."""
        owner, options = type(self).__qualname__, self._genmcp_options
        name = options.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{owner}: an app view needs a non-blank name= option")
        return resource_item(
            type(self).view_uri(),
            name,
            title=options.get("title"),
            description=options.get("description"),
            mime_type=APP_MIME_TYPE,
            icons=checked_icons(options.get("icons"), owner),
            meta=self._meta(arg),
        )

    async def read(self, request: ResourceRequest, channel: Channel, arg: Any) -> ReadOutcome:
        """The view's HTML as ``text/html;profile=mcp-app`` with its ``_meta.ui``."""
        html = self.html(arg)
        if inspect.isawaitable(html):
            html = await html
        if not isinstance(html, str):
            raise TypeError(f"{type(self).__qualname__}.html() returned {type(html).__name__}")
        contents = text_contents(request.uri, html, mime_type=APP_MIME_TYPE, meta=self._meta(arg))
        return Result(read_resource_result(contents))

    def _meta(self, arg: Any) -> dict[str, Any] | None:
        meta = dict(self.option("meta") or {})
        ui = self.ui(arg)
        if ui:
            meta["ui"] = {**meta.get("ui", {}), **ui}
        return meta or None


def _ui_of(options: Mapping[str, Any], owner: str) -> dict[str, Any]:
    return resource_ui_meta(
        csp=options.get("csp"),
        permissions=options.get("permissions"),
        domain=options.get("domain"),
        prefers_border=options.get("prefers_border"),
        owner=owner,
    )
