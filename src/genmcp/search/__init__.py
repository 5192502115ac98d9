"""Search over a Suite's catalog (docs/guides/search.md): ``CatalogSearch`` serves a search
tool and a describe tool that show a caller only what it may see.

Modules: ``index`` (BM25 over short documents), ``catalog`` (the Suite's index, kept in step
with its catalog, and the visibility filter), ``tools`` (the two tools).
"""

from genmcp.search.catalog import CatalogSearch

__all__ = ["CatalogSearch"]
