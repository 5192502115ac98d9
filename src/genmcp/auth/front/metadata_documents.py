"""Client ID Metadata Documents: a ``client_id`` that is an https URL naming the client's
own metadata, fetched by the front instead of a registration.

The fetch is an SSRF risk, so :class:`MetadataDocuments` only fetches ``https`` URLs with a
path, no user info, no fragment; resolves the host itself and refuses it when any address is
not public (loopback, private, link-local, shared, reserved, multicast: ``allow_address``
decides, public only by default; an IPv6 address that carries an IPv4 one, NAT64, 6to4,
Teredo, IPv4-mapped or -compatible, is judged by the IPv4 address it reaches), then connects
to that checked address (TLS still checks the host name), so a DNS answer cannot change
between the check and the connection; follows no redirect; reads at most ``max_bytes``
within ``timeout_s`` in all (a slow server is cut off); and caches the answer
(``cache_ttl_s``, bounded), a failure too (``failure_ttl_s``). Lookups of one URL share one
fetch; at most ``max_fetches_per_host`` fetches to one host and ``max_fetches`` in all run
at once, more are refused (``temporarily_unavailable``, 503), so the front cannot be made to
hammer a host. The document must be a JSON object whose ``client_id`` is the URL itself, for
a public client, with valid redirect URIs.

Needs httpx (the ``auth`` extra).
"""

from __future__ import annotations

import asyncio
import functools
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
from genmcp.storage.memory.expiring import Expiring

__all__ = ["MetadataDocuments", "is_metadata_url", "public_address", "reached"]

MAX_CACHED: Final = 1000
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 in the last 32 bits
_LOCAL_NAT64: Final = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: where it sits varies
_COMPATIBLE: Final = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d


def is_metadata_url(client_id: str) -> bool:
    """True when ``client_id`` is meant as a metadata document URL (it looks like a URL)."""
    return "://" in client_id


def reached(address: Address) -> Address | None:
    """The address a connection to ``address`` reaches: the IPv4 address an IPv6 one
    carries (IPv4-mapped, IPv4-compatible, NAT64 ``64:ff9b::/96``, 6to4, Teredo's client),
    else ``address`` itself; None when it cannot be told (local-use NAT64 ``64:ff9b:1::/48``)."""
    if address.version == 4:
        return address
    assert isinstance(address, ipaddress.IPv6Address)
    if address in _LOCAL_NAT64:
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 0xFFFF):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def public_address(address: Address) -> bool:
    """The default rule: only globally routable unicast addresses."""
    return address.is_global and not address.is_multicast


class MetadataDocuments:
    """Fetches, checks and caches client metadata documents.

    Args:
        max_bytes: the largest document read (more is refused, not truncated).
        timeout_s: the whole fetch (resolution, connection, every byte), at most.
        cache_ttl_s: how long a fetched document is used.
        failure_ttl_s: how long a failed fetch (or a refused document) is answered from
            memory, without fetching again.
        max_fetches: fetches running at once, in all.
        max_fetches_per_host: fetches running at once to one host.
        allow_address: which resolved addresses may be contacted (public only by default);
            it sees the IPv4 address an IPv6 one carries (:func:`reached`).
        verify: TLS verification (True, or an ``ssl.SSLContext`` with your CA).
    """

    def __init__(
        self,
        *,
        max_bytes: int = 5 * 1024,
        timeout_s: float = 5.0,
        cache_ttl_s: float = 300.0,
        failure_ttl_s: float = 30.0,
        max_fetches: int = 32,
        max_fetches_per_host: int = 4,
        allow_address: Callable[[Address], bool] = public_address,
        verify: bool | ssl.SSLContext = True,
    ) -> None:
        self.max_bytes, self.timeout_s, self.cache_ttl_s = max_bytes, timeout_s, cache_ttl_s
        self.failure_ttl_s = failure_ttl_s
        self.max_fetches, self.max_fetches_per_host = max_fetches, max_fetches_per_host
        self.allow_address, self.verify = allow_address, verify
        self._cache = Expiring(MAX_CACHED)  # url -> RegisteredClient
        self._failed = Expiring(MAX_CACHED)  # url -> RegistrationError
        self._flights: dict[str, asyncio.Task[RegisteredClient]] = {}
        self._hosts: dict[str, int] = {}

    async def client(self, url: str) -> RegisteredClient:
        """The client ``url`` describes; :class:`RegistrationError` (``invalid_client``) when
        it cannot be fetched or is not acceptable (``temporarily_unavailable`` when too many
        fetches run)."""
        cached: RegisteredClient | None = self._cache.get(url)
        if cached is not None:
            return cached
        failed: RegistrationError | None = self._failed.get(url)
        if failed is not None:
            raise RegistrationError(failed.error, failed.description, failed.status)
        flight = self._flights.get(url)
        if flight is None:
            host, port = _check_url(url)
            host = host.lower()
            if len(self._flights) >= self.max_fetches:
                raise _busy("too many client metadata documents are being fetched")
            if self._hosts.get(host, 0) >= self.max_fetches_per_host:
                raise _busy(f"too many client metadata documents are being fetched from {host}")
            self._hosts[host] = self._hosts.get(host, 0) + 1
            flight = asyncio.ensure_future(self._load(url, host, port))
            flight.add_done_callback(functools.partial(self._landed, url, host))
            self._flights[url] = flight
        return await asyncio.shield(flight)  # a waiter that leaves never cancels the others

    def _landed(self, url: str, host: str, flight: asyncio.Task[RegisteredClient]) -> None:
        self._flights.pop(url, None)
        left = self._hosts.get(host, 1) - 1
        if left > 0:
            self._hosts[host] = left
        else:
            self._hosts.pop(host, None)
        if not flight.cancelled():
            flight.exception()  # retrieved: nobody may be waiting any more

    async def _load(self, url: str, host: str, port: int) -> RegisteredClient:
        try:
            try:
                async with asyncio.timeout(self.timeout_s):
                    addresses = await self._resolve(host, port)
                    body = await self._fetch(url, host, addresses)
            except TimeoutError:
                raise _refused(f"{url}: no answer within {self.timeout_s} s") from None
            client = _client(url, body)
        except RegistrationError as exc:
            self._failed.put(url, exc, self.failure_ttl_s)
            raise
        self._failed.delete(url)
        self._cache.put(url, client, self.cache_ttl_s)
        return client

    async def _resolve(self, host: str, port: int) -> list[Address]:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except OSError:
            raise _refused(f"{host} does not resolve") from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
        refused = [a for a in addresses if (to := reached(a)) is None or not self.allow_address(to)]
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


def _busy(description: str) -> RegistrationError:
    return RegistrationError("temporarily_unavailable", f"{description}: retry later", 503)


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
