"""``DocsPage``: the page's one response, served by a real uvicorn, and when it is on."""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi import FastAPI

from genmcp import Suite, mcp_router
from genmcp.docsui import DOCS_ENV, DocsPage, docs_enabled, page_bytes
from genmcp.protocol.client import NAME_PARAMS
from support.server import LiveServers


def app_with_page() -> FastAPI:
    app = FastAPI()
    app.include_router(mcp_router(server_name="s", server_version="1", docs=True), prefix="/mcp")
    return app


def test_the_page_inlines_its_stylesheet_and_script_and_stays_small() -> None:
    page = page_bytes().decode()
    assert "/*docs.css*/" not in page and "/*docs.js*/" not in page
    assert page.count("<script>") == 1 and page.count("<style>") == 1
    assert "import " not in page.split("<script>")[1]  # nothing loaded at run time
    assert "http://" not in page and "https://" not in page  # no CDN, no remote asset
    assert len(page_bytes()) < 64 * 1024  # the whole page, uncompressed (about 51 KiB)


def test_the_page_reads_which_param_each_mcp_name_header_repeats_from_the_server() -> None:
    page = page_bytes().decode()
    block = page.split('<script type="application/json" id="name-params">')[1]
    assert json.loads(block.split("</script>")[0]) == dict(NAME_PARAMS)  # protocol.methods'
    assert "/*name-params*/" not in page
    script = page.split("<script>")[1]
    assert '"tools/call": "name"' not in script  # no table of the page's own
    assert 'getElementById("name-params")' in script


def test_get_and_head_answer_the_page_other_methods_405(live_server: LiveServers) -> None:
    base = live_server(app_with_page())
    with httpx.Client(base_url=base) as client:
        got = client.get("/mcp/docs")
        assert got.status_code == 200
        assert got.headers["content-type"] == "text/html; charset=utf-8"
        assert got.headers["content-security-policy"] == "frame-ancestors 'none'"
        assert got.headers["x-content-type-options"] == "nosniff"
        assert got.content == page_bytes()
        head = client.head("/mcp/docs")
        assert (head.status_code, head.content) == (200, b"")
        assert head.headers["content-length"] == str(len(page_bytes()))
        posted = client.post("/mcp/docs", content=b"{}")
        assert (posted.status_code, posted.headers["allow"]) == (405, "GET, HEAD")


async def test_the_page_answers_without_the_asgi_server_too() -> None:
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    await DocsPage()({"type": "http", "method": "DELETE", "path": "/mcp/docs"}, None, send)
    assert sent[0]["status"] == 405


def test_on_when_asked_or_by_the_environment_off_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DOCS_ENV, raising=False)
    assert (docs_enabled(None), docs_enabled(True), docs_enabled(False)) == (False, True, False)
    monkeypatch.setenv(DOCS_ENV, "1")
    assert (docs_enabled(None), docs_enabled(False)) == (True, False)
    monkeypatch.setenv(DOCS_ENV, "yes")  # only "1" turns it on
    assert docs_enabled(None) is False


def test_a_suite_given_is_served_with_its_page(live_server: LiveServers) -> None:
    suite = Suite(server_name="s", server_version="1")
    app = FastAPI()
    app.include_router(mcp_router(suite=suite, docs=True, path="/rpc"))
    base = live_server(app)
    assert httpx.get(f"{base}/rpc/docs").content == page_bytes()
