"""An external API's OpenAPI operations as MCP tools, called over one pooled HTTP client.

::

    from genmcp import OpenAPI, Suite

    suite = Suite(server_name="gw", server_version="1.0", mounts=[
        OpenAPI("https://petstore3.swagger.io/api/v3/openapi.json", namespace="pets",
                tags=["pet"], credentials={"api_key": "..."}),
    ])

The twin of ``genmcp.route_tools`` (the app's own routes, in-process): the same selection
keywords, names, schemas and results. See docs/guides/openapi-import.md.

Modules: ``document`` (reading the spec, its references and servers), ``upstream`` (the
pool, timeouts, breaker and auth), ``tool`` (``OpenAPITool``), ``build``
(``openapi_tools``), ``mount`` (``OpenAPI``: served by a Suite, closed with it).
"""

from __future__ import annotations

from genmcp.openapi.build import openapi_tools
from genmcp.openapi.mount import OpenAPI
from genmcp.openapi.tool import OpenAPITool, OperationSpec
from genmcp.openapi.upstream import HTTPUpstream

__all__ = ["HTTPUpstream", "OpenAPI", "OpenAPITool", "OperationSpec", "openapi_tools"]
