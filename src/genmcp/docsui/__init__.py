"""The endpoint's interactive page (``mcp_router(..., docs=True)`` at ``<endpoint>/docs``).

One HTML page, its CSS and script shipped in ``assets/`` (no framework, nothing fetched at
run time): a browser MCP client of the endpoint it is served beside (``page``).
"""

from genmcp.docsui.page import DOCS_ENV, DocsPage, docs_enabled, page_bytes

__all__ = ["DOCS_ENV", "DocsPage", "docs_enabled", "page_bytes"]
