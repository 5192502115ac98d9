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
import threading
from collections import Counter
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
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from genmcp.auth.front import MetadataDocuments, RegistrationError
from genmcp.auth.front.metadata_documents import reached
from genmcp.client import Client
from genmcp.client.oauth import OAuth
from support.authorization_server import AuthorizationServer
from support.examples import load
from support.ports import listening
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


HITS: Counter[str] = Counter()
"""The requests the document server received, by path."""
GATES: dict[str, threading.Event] = {}
"""`/held/{gate}/...` answers once its gate is set."""


def _documents_app(base: str) -> FastAPI:
    app = FastAPI()

    @app.middleware("http")
    async def count(request: Request, call_next: Any) -> Response:
        HITS[request.url.path] += 1
        answer: Response = await call_next(request)
        return answer

    @app.get("/held/{gate}/{name}")  # its client_id: the URL it was fetched at
    async def held(request: Request, gate: str) -> Response:
        await asyncio.to_thread(GATES.setdefault(gate, threading.Event()).wait, 30)
        return JSONResponse({**document(""), "client_id": str(request.url)})

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
    held = listening(0)  # held until the server serves it
    port = held.getsockname()[1]
    base = f"https://localhost:{port}"
    server = LiveServer(_documents_app(base), sock=held, ssl_certfile=str(cert),
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
    "https://100.64.0.1/c.json", "https://[64:ff9b::7f00:1]/c.json",
    "https://[64:ff9b::a9fe:a9fe]/latest/meta-data", "https://[64:ff9b:1::808:808]/c.json",
    "https://[2002:a00:1::1]/c.json", "https://[::a00:1]/c.json", "https://[::ffff:a00:1]/c.json",
    "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/c.json",
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
    # the document dribbles for 20 s, a byte every 0.2 s (a per-read timeout never fires):
    # only the deadline on the whole fetch answers before the 15 s hang guard (issue 45)
    with pytest.raises(RegistrationError, match="no answer within 1"):
        await asyncio.wait_for(_loopback(cert, timeout_s=1).client(f"{base}/slow.json"), 15)


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


@pytest.mark.parametrize(("address", "to"), [
    ("64:ff9b::a00:1", "10.0.0.1"), ("64:ff9b::808:808", "8.8.8.8"), ("2002:7f00:1::", "127.0.0.1"),
    ("::10.0.0.1", "10.0.0.1"), ("::ffff:169.254.169.254", "169.254.169.254"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1"), ("64:ff9b:1::a00:1", None),
    ("2606:4700::1111", "2606:4700::1111"), ("::1", "::1"), ("8.8.4.4", "8.8.4.4"),
])  # fmt: skip
def test_an_ipv6_address_is_judged_by_the_ipv4_address_it_carries(
    address: str, to: str | None
) -> None:
    expected = None if to is None else ipaddress.ip_address(to)
    assert reached(ipaddress.ip_address(address)) == expected


async def _arrived(path: str, count: int) -> None:
    """Wait until the document server has received ``count`` requests for ``path``."""
    for _ in range(1000):
        if HITS[path] >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{HITS[path]} requests for {path}, not {count}")


async def test_concurrent_lookups_of_one_url_share_one_fetch(documents_server: Any) -> None:
    base, cert = documents_server
    documents, path = _loopback(cert), "/held/one/client.json"
    lookups = [asyncio.create_task(documents.client(base + path)) for _ in range(50)]
    await _arrived(path, 1)
    await asyncio.sleep(0.3)  # time for any other fetch to arrive too
    GATES["one"].set()
    clients = await asyncio.gather(*lookups)
    assert HITS[path] == 1 and {c.client_id for c in clients} == {base + path}


async def test_a_failed_fetch_is_remembered(documents_server: Any) -> None:
    base, cert = documents_server
    documents = _loopback(cert, failure_ttl_s=60)
    for _ in range(20):
        with pytest.raises(RegistrationError, match="answered 404"):
            await documents.client(f"{base}/gone.json")
    assert HITS["/gone.json"] == 1
    quick = _loopback(cert, failure_ttl_s=0)
    for _ in range(3):
        with pytest.raises(RegistrationError, match="answered 404"):
            await quick.client(f"{base}/gone-too.json")
    assert HITS["/gone-too.json"] == 3  # remembered for failure_ttl_s only


async def test_fetches_at_once_are_bounded_per_host_and_in_all(documents_server: Any) -> None:
    base, cert = documents_server
    documents = _loopback(cert, max_fetches_per_host=3, max_fetches=4)
    by_ip = base.replace("localhost", "127.0.0.1")  # another host name, the same server
    urls = [f"{base}/held/many/{n}.json" for n in range(10)]
    urls += [f"{by_ip}/held/many/ip-{n}.json" for n in range(5)]
    lookups = [asyncio.create_task(documents.client(url)) for url in urls]
    await asyncio.sleep(0)
    refused = [task for task in lookups if task.done()]  # refused at once, not queued
    assert len(refused) == 11
    for task in refused:
        error = task.exception()
        assert isinstance(error, RegistrationError) and error.status == 503
        assert error.error == "temporarily_unavailable"
    await _arrived_all("/held/many/", 4)
    await asyncio.sleep(0.3)
    GATES["many"].set()
    answers = await asyncio.gather(*lookups, return_exceptions=True)
    fetched = sum(hits for path, hits in HITS.items() if path.startswith("/held/many/"))
    assert fetched == 4 and sum(not isinstance(a, BaseException) for a in answers) == 4
    assert (await documents.client(urls[-1])).client_id == urls[-1]  # room again


async def _arrived_all(prefix: str, count: int) -> None:
    for _ in range(1000):
        if sum(hits for path, hits in HITS.items() if path.startswith(prefix)) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"fewer than {count} requests under {prefix}")
