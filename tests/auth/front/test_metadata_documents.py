"""Client ID Metadata Documents: the SSRF rules (https only, no private or loopback address,
no redirect, size and time bounds) against a real TLS server, and a client whose `client_id`
is its document's URL signing in through the front end to end.

The document server runs on loopback with a certificate made here, so the tests that fetch
pass `allow_address=` loopback and the certificate as the CA; the default rule (public
addresses only) is shown refusing that same server.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from fastapi import FastAPI
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from genmcp.auth.front import MetadataDocuments, RegistrationError
from genmcp.client import Client
from genmcp.client.oauth import OAuth
from support.authorization_server import AuthorizationServer, free_port
from support.examples import load
from support.recorder import Recorder
from support.server import LiveServer, LiveServers

from .conftest import CLIENT_REDIRECT, FRONT_PORT, MCP, browser, front_env


def _certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert, pem = folder / "cert.pem", folder / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))  # fmt: skip
    return cert, pem


def _documents_app(base: str) -> FastAPI:
    app = FastAPI()

    def document(path: str, **overrides: Any) -> dict[str, Any]:
        return {"client_id": f"{base}{path}", "client_name": "cimd client",
                "redirect_uris": [CLIENT_REDIRECT], "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], **overrides}  # fmt: skip

    @app.get("/client.json")
    async def good() -> Response:
        return JSONResponse(document("/client.json"))

    @app.get("/other-id.json")
    async def other_id() -> Response:
        return JSONResponse(document("/client.json"))

    @app.get("/open-redirect.json")
    async def bad_redirect() -> Response:
        return JSONResponse(document("/open-redirect.json", redirect_uris=["http://evil.example/"]))

    @app.get("/big.json")
    async def big() -> Response:
        return Response(b" " * (10 * 1024 * 1024), media_type="application/json")

    @app.get("/slow.json")
    async def slow() -> Response:
        async def dribble() -> AsyncIterator[bytes]:
            for _ in range(100):
                yield b" "
                await asyncio.sleep(0.2)

        return StreamingResponse(dribble(), media_type="application/json")

    @app.get("/moved.json")
    async def moved() -> Response:
        return RedirectResponse(f"{base}/client.json")

    return app


@pytest.fixture(scope="module")
def documents_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    cert, key = _certificate(tmp_path_factory.mktemp("tls"))
    port = free_port()
    base = f"https://localhost:{port}"
    server = LiveServer(_documents_app(base), port=port, ssl_certfile=str(cert),
                        ssl_keyfile=str(key))  # fmt: skip
    with server:
        yield base, cert


def _loopback(cert: Path, **options: Any) -> MetadataDocuments:
    context = ssl.create_default_context(cafile=str(cert))
    return MetadataDocuments(allow_address=lambda a: a.is_loopback, verify=context, **options)


async def test_a_good_document_is_a_client_and_is_cached(documents_server: Any) -> None:
    base, cert = documents_server
    documents = _loopback(cert)
    client = await documents.client(f"{base}/client.json")
    assert client.client_id == f"{base}/client.json"
    assert client.redirect_uris == (CLIENT_REDIRECT,) and "refresh_token" in client.grant_types
    assert await documents.client(f"{base}/client.json") is client


@pytest.mark.parametrize("url", [
    "http://example.com/client.json", "https://example.com", "https://example.com/",
    "https://u:p@example.com/c.json", "https://example.com/c.json#x",
])  # fmt: skip
async def test_only_https_urls_with_a_path(url: str) -> None:
    with pytest.raises(RegistrationError, match=r"https|path|user info"):
        await MetadataDocuments().client(url)


@pytest.mark.parametrize("url", [
    "https://127.0.0.1/c.json", "https://10.0.0.1/c.json", "https://192.168.1.1/c.json",
    "https://169.254.169.254/latest/meta-data", "https://[::1]/c.json", "https://localhost/c.json",
    "https://100.64.0.1/c.json",
])  # fmt: skip
async def test_private_and_loopback_addresses_are_refused(url: str) -> None:
    with pytest.raises(RegistrationError, match="not public"):
        await MetadataDocuments().client(url)


async def test_the_default_rule_refuses_the_loopback_server(documents_server: Any) -> None:
    base, cert = documents_server
    context = ssl.create_default_context(cafile=str(cert))
    with pytest.raises(RegistrationError, match="not public"):
        await MetadataDocuments(verify=context).client(f"{base}/client.json")


@pytest.mark.parametrize(("path", "why"), [
    ("/big.json", "over 5120 bytes"), ("/moved.json", "answered 307"),
    ("/other-id.json", "its client_id must be"), ("/missing.json", "answered 404"),
])  # fmt: skip
async def test_bad_documents_are_refused(documents_server: Any, path: str, why: str) -> None:
    base, cert = documents_server
    with pytest.raises(RegistrationError, match=why):
        await _loopback(cert).client(base + path)


async def test_bad_redirect_uris_and_slow_servers_are_refused(documents_server: Any) -> None:
    base, cert = documents_server
    with pytest.raises(RegistrationError) as refused:
        await _loopback(cert).client(f"{base}/open-redirect.json")
    assert refused.value.error == "invalid_redirect_uri"
    started = asyncio.get_running_loop().time()
    with pytest.raises(RegistrationError, match="no answer within 1"):
        await _loopback(cert, timeout_s=1).client(f"{base}/slow.json")
    assert asyncio.get_running_loop().time() - started < 3


async def test_a_metadata_document_client_signs_in_through_the_front(
    documents_server: Any, upstream: AuthorizationServer, live_server: LiveServers
) -> None:
    base, cert = documents_server
    app = load("authorization_server").create_app(front_env(upstream.issuer),
                                                  documents=_loopback(cert))  # fmt: skip
    wire = Recorder(app)
    live_server(wire, port=FRONT_PORT)
    url = f"{base}/client.json"
    auth = OAuth(client_metadata_url=url, authorize=browser, redirect_uri=CLIENT_REDIRECT)
    async with Client(MCP, auth=auth) as client:
        who = await client.call_tool("whoami", {})
    assert who["structuredContent"]["client_id"] == url
    assert who["structuredContent"]["principal"] == "alice"
    assert "/register" not in [exchange.path for exchange in wire.exchanges]
    async with httpx.AsyncClient(trust_env=False) as http:
        private = await http.get(f"http://127.0.0.1:{FRONT_PORT}/authorize",
                                 params={"client_id": "https://10.1.2.3/c.json"})  # fmt: skip
        plain = await http.get(f"http://127.0.0.1:{FRONT_PORT}/authorize",
                               params={"client_id": "http://example.com/c.json"})  # fmt: skip
    assert private.status_code == 400 and "location" not in private.headers
    assert plain.status_code == 400 and "not https" in plain.text
