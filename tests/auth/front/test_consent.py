"""The consent step: a page per client, answered once, only from the browser it was shown
to (the confused-deputy defence), denial back to the client, no framing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from genmcp.auth.front.consent import Consents, consent_page
from genmcp.auth.front.grants import Authorization
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.server import LiveServers

from .conftest import CLIENT_REDIRECT, FRONT, FRONT_PORT, approve, front_env
from .test_front import _authorize_url, _register

ASKED = Authorization("c1", "http://127.0.0.1:9/cb", "x" * 43, "s", ("mcp:tools",), "https://r")


async def test_a_consent_is_answered_once_from_its_browser() -> None:
    consents = Consents()
    one, two = await consents.ask(ASKED, "app"), await consents.ask(ASKED, "app")
    assert await consents.answer(one.consent_id, two.browser) is None  # another browser
    assert await consents.answer(one.consent_id, one.browser) == one  # that try spent nothing
    assert await consents.answer(one.consent_id, one.browser) is None  # used once
    assert await consents.answer(two.consent_id, None) is None
    three = await consents.ask(ASKED, None)
    assert await consents.answer(three.consent_id, three.browser) == three
    assert await consents.answer(three.consent_id, three.browser) is None
    short = Consents(ttl_s=0.05)
    four = await short.ask(ASKED, None)
    await asyncio.sleep(0.1)
    assert await short.answer(four.consent_id, four.browser) is None


async def test_the_page_names_the_client_and_escapes() -> None:
    page = consent_page(await Consents().ask(ASKED, '<img src=x onerror="alert(1)">'), "/a/c")
    assert "<img" not in page and "&lt;img" in page
    assert "127.0.0.1:9" in page and "mcp:tools" in page and 'action="/a/c"' in page


@pytest.fixture
def served(upstream: AuthorizationServer, live_server: LiveServers) -> Any:
    live_server(load("authorization_server").create_app(front_env(upstream.issuer)),
                port=FRONT_PORT)  # fmt: skip


async def test_consent_from_another_browser_is_refused(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as victim, httpx.AsyncClient(
        trust_env=False
    ) as attacker:
        client_id = (await _register(attacker, client_name="Evil"))["client_id"]
        page = await attacker.get(_authorize_url(client_id))
        assert "Evil" in page.text
        assert page.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        # the attacker makes the victim's browser post the attacker's consent id
        forged = await approve(victim, page)
        assert forged.status_code == 400 and "location" not in forged.headers
        # the forged post spent nothing: the consent is still its own browser's to answer
        assert (await approve(attacker, page)).status_code == 303
        # an approved sign-in's callback only completes in the browser that approved it
        approved = await approve(attacker, await attacker.get(_authorize_url(client_id)))
        state = httpx.URL(approved.headers["location"]).params["state"]
        elsewhere = await victim.get(f"{FRONT}/oauth/callback", params={"state": state,
                                                                         "code": "stolen"})
        assert elsewhere.status_code == 400 and "location" not in elsewhere.headers
        # and spends nothing: the browser that approved still finishes (here, a bad code)
        own = await attacker.get(f"{FRONT}/oauth/callback", params={"state": state,
                                                                   "code": "stolen"})
        assert own.status_code == 302 and str(own.headers["location"]).startswith(CLIENT_REDIRECT)


async def test_a_denial_goes_back_to_the_client(served: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        client_id = (await _register(http))["client_id"]
        denied = await approve(http, await http.get(_authorize_url(client_id)), "deny")
        assert denied.status_code == 303
        back = httpx.URL(denied.headers["location"])
        assert str(back).startswith(CLIENT_REDIRECT) and back.params["error"] == "access_denied"
        assert back.params["state"] == "st-1" and back.params["iss"] == FRONT
        junk = await http.post(f"{FRONT}/authorize/consent", json={"consent": "x"})
        assert junk.status_code == 400
