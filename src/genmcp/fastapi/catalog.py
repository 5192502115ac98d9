"""Opt-in routes serving a domain's catalog of Server Cards (the SEP-2127 drafts).

:func:`catalog_app` builds the MCP Catalog (``/.well-known/mcp/catalog.json``) or the AI
Catalog (``/.well-known/ai-catalog.json``) of the Server Cards an app serves, once, and
returns a :class:`CatalogApp`: the same raw ASGI app as a Server Card's (``GET``/``HEAD``,
CORS for browser clients, ``Cache-Control: public, max-age=3600``, an ``ETag`` and 304 on a
matching ``If-None-Match``), with the catalog's media type::

    cards = [server_card_app(suite, url="https://h/mcp", name="com.example/notes", draft=True)]
    app.add_route("/mcp/server-card", cards[0])
    app.add_route(MCP_CATALOG_PATH, catalog_app(cards, draft=True))
    app.add_route(AI_CATALOG_PATH, catalog_app(cards, draft=True, form="ai"))

:func:`tenant_cards` makes one card per tenant of a ``Tenants`` (each tenant's own Suite,
at its own URL), for a catalog listing every tenant. Imports genmcp's protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from genmcp.fastapi.server_card import ServerCardApp, server_card_app
from genmcp.protocol.catalog import AI_CATALOG_MEDIA_TYPE, catalog, catalog_entry

if TYPE_CHECKING:
    from genmcp.fastapi.tenants import Tenants

__all__ = ["CatalogApp", "catalog_app", "tenant_cards"]


class CatalogApp(ServerCardApp):
    """An ASGI app that serves one catalog document (built once)."""

    __slots__ = ()
    media_type: ClassVar[bytes] = b"application/json"

    @property
    def document(self) -> dict[str, Any]:
        """The catalog served."""
        return self.card


class _AICatalogApp(CatalogApp):
    __slots__ = ()
    media_type: ClassVar[bytes] = AI_CATALOG_MEDIA_TYPE.encode()


def catalog_app(
    cards: Iterable[ServerCardApp | Mapping[str, Any]],
    *,
    draft: bool,
    form: Literal["mcp", "ai"] = "mcp",
    namespace: str | None = "mcp",
) -> CatalogApp:
    """The catalog of ``cards`` (``server_card_app`` routes, or cards), each listed at its
    reserved location (its endpoint URL plus ``/server-card``).

    Args:
        cards: the Server Cards the domain offers.
        draft: must be True: the catalogs are drafts that may still change.
        form: ``"mcp"`` (``/.well-known/mcp/catalog.json``) or ``"ai"``
            (``/.well-known/ai-catalog.json``, ``application/ai-catalog+json``).
        namespace: the identifiers' namespace segment (None: none).
    """
    entries = [
        catalog_entry(card.card if isinstance(card, ServerCardApp) else card, namespace=namespace)
        for card in cards
    ]
    document = catalog(entries, draft=draft, form=form)
    return _AICatalogApp(document) if form == "ai" else CatalogApp(document)


async def tenant_cards(
    tenants: Tenants,
    ids: Iterable[str],
    *,
    url: Callable[[str], str],
    name: Callable[[str], str],
    draft: bool,
    **card: Any,
) -> list[ServerCardApp]:
    """One Server Card route per tenant of ``ids``: its own Suite (built now), at
    ``url(tenant)``, named ``name(tenant)``; ``card`` goes to ``server_card_app``."""
    made = []
    for tenant in ids:
        suite = await tenants.open(tenant)
        made.append(server_card_app(suite, url=url(tenant), name=name(tenant), draft=draft,
                                    **card))  # fmt: skip
    return made
