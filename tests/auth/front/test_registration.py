"""ClientRegistry: RFC 7591 metadata checks, the MCP redirect-URI rules, bounds and expiry."""

from __future__ import annotations

import asyncio

import pytest

from genmcp.auth.front.registration import ClientRegistry, RegistrationError, check_redirect_uri

GOOD = {"redirect_uris": ["http://127.0.0.1:33418/callback"]}


@pytest.mark.parametrize("uri", [
    "https://app.example/cb", "http://127.0.0.1:8/cb", "http://localhost/cb", "http://[::1]:9/",
])  # fmt: skip
def test_https_and_loopback_http_are_accepted(uri: str) -> None:
    assert check_redirect_uri(uri) == uri


@pytest.mark.parametrize("uri", [
    "http://app.example/cb", "http://127.0.0.1.evil.example/cb", "javascript:alert(1)",
    "https://app.example/cb#x", "https://me@app.example/cb", "/cb", "", 7, "https://" + "a" * 3000,
    "https://app.example/cb\r\nSet-Cookie: x=1", "https://app.example/c\tb",
    "https://app.exa\nmple/cb", "https://app.example/c b", "https://app.example/c\x7fb",
])  # fmt: skip
def test_other_redirect_uris_are_refused(uri: object) -> None:
    with pytest.raises(RegistrationError) as refused:
        check_redirect_uri(uri)
    assert refused.value.error == "invalid_redirect_uri" and refused.value.status == 400


async def test_a_registration_answers_rfc_7591() -> None:
    registry = ClientRegistry()
    asked = {**GOOD, "client_name": "x", "grant_types": ["authorization_code"]}
    client = await registry.register(asked)
    document = client.document()
    assert document["token_endpoint_auth_method"] == "none" and "client_secret" not in document
    assert document["redirect_uris"] == GOOD["redirect_uris"] and document["client_name"] == "x"
    assert await registry.get(client.client_id) == client and await registry.get("other") is None


@pytest.mark.parametrize("metadata", [
    {}, {"redirect_uris": []}, {"redirect_uris": "https://a.example/"},
    {**GOOD, "token_endpoint_auth_method": "client_secret_basic"},
    {**GOOD, "grant_types": ["client_credentials"]}, {**GOOD, "response_types": ["token"]},
    {**GOOD, "client_name": 3}, {"redirect_uris": ["https://a.example/"] * 11},
])  # fmt: skip
async def test_bad_metadata_is_refused(metadata: dict[str, object]) -> None:
    with pytest.raises(RegistrationError) as refused:
        await ClientRegistry().register(metadata)
    assert refused.value.error in ("invalid_redirect_uri", "invalid_client_metadata")


async def test_a_flood_is_bounded_and_registrations_expire() -> None:
    registry = ClientRegistry(max_clients=3, ttl_s=0.2)
    clients = [await registry.register(GOOD) for _ in range(3)]
    with pytest.raises(RegistrationError) as full:
        await registry.register(GOOD)
    assert full.value.status == 429 and await registry.get(clients[2].client_id) is not None
    await asyncio.sleep(0.25)
    assert await registry.get(clients[0].client_id) is None
    await registry.register(GOOD)  # the expired ones freed their places
    await registry.register(GOOD)


async def test_a_registration_never_used_lives_an_hour_a_used_one_its_full_life() -> None:
    registry = ClientRegistry(max_clients=2, ttl_s=60.0, unused_ttl_s=0.2)
    used, unused = await registry.register(GOOD), await registry.register(GOOD)
    with pytest.raises(RegistrationError):  # two unused at once: the bound
        await registry.register(GOOD)
    assert await registry.keep(used.client_id) and await registry.keep(used.client_id)
    await asyncio.sleep(0.25)
    assert await registry.get(unused.client_id) is None  # never used: gone
    kept = await registry.get(used.client_id)
    assert kept is not None and kept.expires_at > used.expires_at + 50
    assert not await registry.keep(unused.client_id)
    await registry.register(GOOD)  # the unused ones freed their places within their short life
    await registry.register(GOOD)
