"""Client ID Metadata Documents: a ``client_id`` that is an https URL naming the client's
own metadata, fetched by the front instead of a registration.

The fetch is an SSRF risk, so :class:`MetadataDocuments` only fetches ``https`` URLs with a
path, no user info, no fragment; resolves the host itself and refuses it when any address is
not public (loopback, private, link-local, shared, reserved, multicast: ``allow_address``
decides, public only by default), then connects to that checked address (TLS still checks
the host name), so a DNS answer cannot change between the check and the connection; follows
no redirect; reads at most ``max_bytes`` within ``timeout_s`` in all (a slow server is cut
off); and caches the answer (``cache_ttl_s``, bounded). The document must be a JSON object
whose ``client_id`` is the URL itself, for a public client, with valid redirect URIs.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import ssl
import time
from collections.abc import Callable
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from genmcp.auth.front.registration import RegisteredClient, RegistrationError, check_redirect_uri

__all__ = ["MetadataDocuments", "is_metadata_url", "public_address"]

MAX_CACHED: Final = 1000
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def is_metadata_url(client_id: str) -> bool:
    """True when ``client_id`` is meant as a metadata document URL (it looks like a URL)."""
    return "://" in client_id


def public_address(address: Address) -> bool:
    """The default rule: only globally routable unicast addresses."""
    return address.is_global and not address.is_multicast


class MetadataDocuments:
    """Fetches, checks and caches client metadata documents.

    Args:
        max_bytes: the largest document read (more is refused, not truncated).
        timeout_s: the whole fetch (resolution, connection, every byte), at most.
        cache_ttl_s: how long a fetched document is used.
        allow_address: which resolved addresses may be contacted (public only by default).
        verify: TLS verification (True, or an ``ssl.SSLContext`` with your CA).
    """

    def __init__(
        self,
        *,
        max_bytes: int = 5 * 1024,
        timeout_s: float = 5.0,
        cache_ttl_s: float = 300.0,
        allow_address: Callable[[Address], bool] = public_address,
        verify: bool | ssl.SSLContext = True,
    ) -> None:
        self.max_bytes, self.timeout_s, self.cache_ttl_s = max_bytes, timeout_s, cache_ttl_s
        self.allow_address, self.verify = allow_address, verify
        self._cache: dict[str, tuple[RegisteredClient, float]] = {}

    async def client(self, url: str) -> RegisteredClient:
        """The client ``url`` describes; :class:`RegistrationError` (``invalid_client``) when
        it cannot be fetched or is not acceptable."""
        cached = self._cache.get(url)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        host, port = _check_url(url)
        try:
            async with asyncio.timeout(self.timeout_s):
                addresses = await self._resolve(host, port)
                body = await self._fetch(url, host, addresses)
        except TimeoutError:
            raise _refused(f"{url}: no answer within {self.timeout_s} s") from None
        client = _client(url, body)
        if len(self._cache) >= MAX_CACHED:
            self._cache.pop(next(iter(self._cache)))
        self._cache[url] = (client, time.monotonic() + self.cache_ttl_s)
        return client

    async def _resolve(self, host: str, port: int) -> list[Address]:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except OSError:
            raise _refused(f"{host} does not resolve") from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
        refused = [a for a in addresses if not self.allow_address(a)]
        if refused or not addresses:
            raise _refused(f"{host} resolves to an address that is not public ({refused[0]})"
                           if refused else f"{host} has no address")  # fmt: skip
        return addresses

    async def _fetch(self, url: str, host: str, addresses: list[Address]) -> bytes:
        parts = urlsplit(url)
        for address in addresses:
            netloc = f"[{address}]" if address.version == 6 else str(address)
            if parts.port is not None:
                netloc += f":{parts.port}"
            pinned = parts._replace(netloc=netloc).geturl()
            headers = {"host": parts.netloc, "accept": "application/json"}
            http = httpx.AsyncClient(verify=self.verify, follow_redirects=False,
                                     trust_env=False, timeout=self.timeout_s)  # fmt: skip
            async with http:
                try:
                    return await self._read(http, pinned, headers, host, url)
                except httpx.ConnectError:
                    continue
                except httpx.HTTPError as exc:
                    raise _refused(f"{url}: {type(exc).__name__}") from None
        raise _refused(f"{url}: no address of {host} answers")

    async def _read(
        self, http: httpx.AsyncClient, pinned: str, headers: dict[str, str], host: str, url: str
    ) -> bytes:
        request = http.build_request("GET", pinned, headers=headers,
                                     extensions={"sni_hostname": host})  # fmt: skip
        response = await http.send(request, stream=True)
        try:
            if response.status_code != 200:
                raise _refused(f"{url} answered {response.status_code}, not 200")
            body = b""
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > self.max_bytes:
                    raise _refused(f"{url}: the document is over {self.max_bytes} bytes")
            return body
        finally:
            await response.aclose()


def _refused(description: str) -> RegistrationError:
    return RegistrationError("invalid_client", f"client metadata document: {description}")


def _check_url(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise _refused(f"{url!r} is not https")
    if parts.username is not None or parts.password is not None or parts.fragment:
        raise _refused(f"{url!r} has user info or a fragment")
    if not parts.hostname or parts.path in ("", "/"):
        raise _refused(f"{url!r} needs a host and a path")
    try:
        return parts.hostname, parts.port or 443
    except ValueError:
        raise _refused(f"{url!r} has a bad port") from None


def _client(url: str, body: bytes) -> RegisteredClient:
    try:
        document: Any = json.loads(body)
    except ValueError:
        raise _refused(f"{url} is not JSON") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise _refused(f"{url}: its client_id must be the document's own URL")
    if document.get("token_endpoint_auth_method", "none") != "none":
        raise _refused(f"{url}: only public clients (token_endpoint_auth_method none)")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise _refused(f"{url}: redirect_uris is missing")
    redirect_uris = tuple(check_redirect_uri(uri) for uri in uris)
    grants = document.get("grant_types", ["authorization_code"])
    name = document.get("client_name")
    return RegisteredClient(
        client_id=url,
        redirect_uris=redirect_uris,
        grant_types=tuple(g for g in grants if isinstance(g, str)) if isinstance(grants, list)
        else ("authorization_code",),
        client_name=name if isinstance(name, str) else None,
        issued_at=int(time.time()),
        expires_at=float("inf"),
    )  # fmt: skip
