"""``OAuth``: a client's side of MCP authorization, as an ``httpx.Auth`` for ``Client(auth=...)``.

A request answered 401 (or 403 ``insufficient_scope``) starts the dance the MCP spec asks
of a client, then the request is sent again with the token:

1. the protected resource metadata (RFC 9728): the challenge's ``resource_metadata``, else
   ``/.well-known/oauth-protected-resource`` with the endpoint's path, then without; its
   ``resource`` must be this server (else no token is asked for: it would go elsewhere);
2. the authorization server's metadata (RFC 8414, then OpenID discovery, path-aware); its
   ``issuer`` must be the one asked for;
3. the client: pre-registered (``client_id``), a Client ID Metadata Document URL
   (``client_metadata_url``, when the server supports them), else dynamic registration;
4. the grant: ``client_credentials``, the authorization code with PKCE (S256), ``state``
   and the RFC 9207 ``iss`` check, the user's part done by ``authorize(url)`` (it returns the
   URL the authorization server redirected to), or an assertion grant
   (:mod:`genmcp.client.assertions`: workload identity, enterprise-managed); the client
   authenticates with its secret or its key (``private_key_jwt``); ``resource`` (RFC 8707)
   on every request;
5. the scope: the challenge's, else the resource's ``scopes_supported``; a 403
   ``insufficient_scope`` asks again with the new scope (step-up), at most ``MAX_ROUNDS``.

A refresh token, when one came, is used first on the next 401. Tokens are kept per
authorization server, so a resource that moves to another server gets a new client. With
``dpop=`` the tokens are DPoP-bound (:mod:`genmcp.client.dpop`): every token request and
every request to the server carries a fresh proof, and a server's nonce challenge is
answered once per new nonce.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import httpx

from genmcp.client.assertions import AssertionGrant, PrivateKeyJWT, json_object
from genmcp.client.dpop import NONCE_ERROR, DPoP
from genmcp.client.errors import ClientError

__all__ = ["OAuth", "follow_redirect", "parse_challenge"]

MAX_ROUNDS: Final = 3
"""Authorizations one request may start (a server that keeps refusing is not asked forever)."""
DEFAULT_REDIRECT: Final = "http://127.0.0.1:33418/callback"
Authorize = Callable[[str], Awaitable[str]]


def parse_challenge(header: str | None) -> dict[str, str]:
    """The parameters of a ``WWW-Authenticate: Bearer k="v", ...`` challenge."""
    scheme = (header or "").split(" ", 1)[0].lower()
    if not header or scheme not in ("bearer", "dpop"):  # DPoP: RFC 9449 §7.1
        return {}
    found: dict[str, str] = {}
    rest = header[len(scheme) :]
    while rest:
        rest = rest.lstrip(" ,")
        key, sep, rest = rest.partition("=")
        if not sep:
            break
        if rest.startswith('"'):
            value, _, rest = rest[1:].partition('"')
        else:
            value, _, rest = rest.partition(",")
        found[key.strip().lower()] = value.strip()
    return found


async def follow_redirect(url: str) -> str:
    """An ``authorize`` for an authorization server that approves at once (tests, CI): the
    redirect's ``Location``, without a browser."""
    async with httpx.AsyncClient(follow_redirects=False, trust_env=False) as http:
        response = await http.get(url)
    location: str | None = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise ClientError(f"the authorization endpoint answered {response.status_code}, "
                          "not a redirect: it wants a user (pass authorize=)")  # fmt: skip
    return location


@dataclass
class _Grant:
    """What one authorization server gave us: the client, the tokens."""

    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"
    access_token: str | None = None
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: str | None = None
    token_type: str = "bearer"


@dataclass
class _Server:
    """An authorization server, as its metadata describes it."""

    issuer: str
    metadata: dict[str, Any]
    resource: str
    scopes: list[str] = field(default_factory=list)


class OAuth(httpx.Auth):
    """OAuth 2.1 for an MCP client (see the module docstring).

    Args:
        client_id, client_secret: a pre-registered client (no registration then).
        client_metadata_url: this client's Client ID Metadata Document, used as its
            ``client_id`` where the authorization server supports it.
        client_key: a ``PrivateKeyJWT``: the client authenticates with a JWT signed by its
            key (``private_key_jwt``), not a secret; needs ``client_id``.
        grant: ``"authorization_code"`` (a user signs in), ``"client_credentials"``, or an
            assertion grant: ``JWTBearer`` (workload identity), ``IdentityAssertion``
            (enterprise-managed authorization).
        authorize: takes the authorization URL, has the user sign in, returns the URL the
            authorization server redirected to (``follow_redirect`` for a server that approves
            at once).
        redirect_uri: where ``authorize`` expects the redirect.
        scope: the scope to ask for, instead of the server's.
        client_name: the name given at dynamic registration.
        dpop: a ``DPoP`` key: ask for DPoP-bound tokens and prove possession on every request.
    """

    requires_response_body = True

    def __init__(
        self,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        client_key: PrivateKeyJWT | None = None,
        grant: str | AssertionGrant = "authorization_code",
        authorize: Authorize | None = None,
        redirect_uri: str = DEFAULT_REDIRECT,
        scope: str | None = None,
        client_name: str = "genmcp-client",
        dpop: DPoP | None = None,
    ) -> None:
        if isinstance(grant, str) and grant not in ("authorization_code", "client_credentials"):
            raise ValueError(f"grant {grant!r}: authorization_code, client_credentials or an "
                             "assertion grant (JWTBearer, IdentityAssertion)")  # fmt: skip
        if client_key is not None and (client_id is None or client_secret is not None):
            raise ValueError("client_key needs client_id, and replaces client_secret")
        if grant == "client_credentials" and not (client_id and (client_secret or client_key)):
            raise ValueError("client_credentials needs client_id and client_secret or client_key")
        self.client_id, self.client_secret, self.client_key = client_id, client_secret, client_key
        self.dpop = dpop
        self.client_metadata_url, self.grant = client_metadata_url, grant
        self.authorize, self.redirect_uri = authorize, redirect_uri
        self.scope, self.client_name = scope, client_name
        self._grants: dict[str, _Grant] = {}
        self._servers: dict[str, _Server] = {}
        self._current: str | None = None

    @property
    def access_token(self) -> str | None:
        """The token requests carry now, or None before the first authorization."""
        grant = self._grants.get(self._current or "")
        return grant.access_token if grant is not None else None

    @property
    def token_type(self) -> str | None:
        """``"bearer"`` or ``"dpop"`` (a DPoP-bound token), or None before the first token."""
        grant = self._grants.get(self._current or "")
        return grant.token_type if grant is not None and grant.access_token else None

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """Send ``request`` with the token; on 401 or 403 ``insufficient_scope``, authorize
        and send it again (``MAX_ROUNDS`` at most)."""
        sent = self._sign(request)
        response = yield request
        for _ in range(MAX_ROUNDS):
            challenge = parse_challenge(response.headers.get("www-authenticate"))
            if self.dpop is not None and self.dpop.wants_retry(request.url, sent, response):
                pass  # a nonce challenge: the same token, a new proof with the nonce
            elif challenge.get("error") == NONCE_ERROR:
                return  # the nonce it wants is the one just sent: asking again won't do
            elif response.status_code == 401:
                if not await self._refresh(request.url):
                    await self._authorize(request.url, challenge, step_up=False)
            elif response.status_code == 403 and challenge.get("error") == "insufficient_scope":
                await self._authorize(request.url, challenge, step_up=True)
            else:
                return
            sent = self._sign(request)
            response = yield request
        if self.dpop is not None:
            self.dpop.remember(request.url, response)

    def _sign(self, request: httpx.Request) -> str | None:
        """Put the token (and a DPoP proof) on ``request``; the DPoP nonce the proof carries."""
        token = self.access_token
        if token is None:
            return None
        if self.dpop is not None and self.token_type == "dpop":
            nonce = self.dpop.nonce(request.url)
            request.headers["authorization"] = f"DPoP {token}"
            request.headers["dpop"] = self.dpop.proof(request.method, request.url,
                                                      access_token=token)  # fmt: skip
            return nonce
        request.headers["authorization"] = f"Bearer {token}"
        return None

    # -- discovery --------------------------------------------------------------------------

    async def _authorize(self, url: httpx.URL, challenge: Mapping[str, str], step_up: bool) -> None:
        async with httpx.AsyncClient(follow_redirects=False, trust_env=False) as http:
            server = await self._discover(http, url, challenge)
            grant = await self._client(http, server)
            scope = self._scope(server, challenge, grant if step_up else None)
            if self.grant == "client_credentials":
                form = {"grant_type": "client_credentials"}
            elif isinstance(self.grant, str):
                form = await self._code(grant, server, scope)
            else:
                form = await self.grant.form(http, issuer=server.issuer,
                                             resource=server.resource, scope=scope)  # fmt: skip
            if scope:
                form["scope"] = scope
            await self._token(http, server, grant, form)
            grant.scope = scope
            self._current = server.issuer

    async def _discover(
        self, http: httpx.AsyncClient, url: httpx.URL, challenge: Mapping[str, str]
    ) -> _Server:
        origin = f"{url.scheme}://{url.netloc.decode()}"
        path = url.path.rstrip("/")
        places = [challenge["resource_metadata"]] if challenge.get("resource_metadata") else []
        places += [f"{origin}/.well-known/oauth-protected-resource{path}",
                   f"{origin}/.well-known/oauth-protected-resource"]  # fmt: skip
        document = await _first_json(http, places)
        if document is None:  # 2025-03-26: the MCP server's origin is the authorization server
            issuer, resource, scopes = origin, str(url), []
        else:
            servers = document.get("authorization_servers") or []
            if not servers or not isinstance(servers[0], str):
                raise ClientError(f"{url}: the resource metadata names no authorization server")
            issuer, resource = servers[0], str(document.get("resource") or url)
            scopes = [s for s in document.get("scopes_supported") or [] if isinstance(s, str)]
            if not _covers(resource, str(url)):
                raise ClientError(f"{url}: the resource metadata is for {resource!r}, "
                                  "not this server: no token is asked for")  # fmt: skip
        metadata = await _first_json(http, _metadata_places(issuer))
        if metadata is None:
            if document is not None:
                raise ClientError(f"no authorization server metadata for {issuer}")
            metadata = {"issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                        "token_endpoint": f"{issuer}/token",
                        "registration_endpoint": f"{issuer}/register"}  # fmt: skip
        if metadata.get("issuer") != issuer:
            raise ClientError(f"the metadata of {issuer} names the issuer "
                              f"{metadata.get('issuer')!r}: not used")  # fmt: skip
        self._servers[issuer] = _Server(issuer, metadata, resource, scopes)
        return self._servers[issuer]

    async def _client(self, http: httpx.AsyncClient, server: _Server) -> _Grant:
        known = self._grants.get(server.issuer)
        if known is not None:
            return known
        metadata = server.metadata
        methods = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        if self.client_id is not None and self.client_key is not None:
            grant = _Grant(self.client_id, None, "private_key_jwt")
            _check_signing(metadata, self.client_key.key.alg, server.issuer)
        elif self.client_id is not None:
            method = "none"
            if self.client_secret is not None:
                method = "client_secret_post" if "client_secret_basic" not in methods else (
                    "client_secret_basic")  # fmt: skip
            grant = _Grant(self.client_id, self.client_secret, method)
        elif self.client_metadata_url and metadata.get("client_id_metadata_document_supported"):
            grant = _Grant(self.client_metadata_url)
        elif not isinstance(self.grant, str):  # an assertion grant: the assertion says who
            grant = _Grant("")
        elif metadata.get("registration_endpoint"):
            grant = await self._register(http, metadata, methods)
        else:
            raise ClientError(f"{server.issuer} has no registration endpoint: pass client_id")
        self._grants[server.issuer] = grant
        return grant

    async def _register(
        self, http: httpx.AsyncClient, metadata: Mapping[str, Any], methods: list[str]
    ) -> _Grant:
        types = ["client_credentials"] if self.grant == "client_credentials" else [
            "authorization_code", "refresh_token"]  # fmt: skip
        wanted = {
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": types,
            "response_types": ["code"],
            "token_endpoint_auth_method": "none" if "none" in methods else methods[0],
            "application_type": "native",
        }
        response = await http.post(str(metadata["registration_endpoint"]), json=wanted)
        body = json_object(response)
        if response.status_code >= 400 or not isinstance(body.get("client_id"), str):
            raise ClientError(f"dynamic registration failed (HTTP {response.status_code}): {body}")
        method = str(body.get("token_endpoint_auth_method") or wanted["token_endpoint_auth_method"])
        return _Grant(body["client_id"], body.get("client_secret"), method)

    def _scope(
        self, server: _Server, challenge: Mapping[str, str], before: _Grant | None
    ) -> str | None:
        if self.scope is not None:
            return self.scope
        wanted = (challenge.get("scope") or "").split() or list(server.scopes)
        if before is not None and before.scope:  # step-up: keep what was granted
            wanted = before.scope.split() + [s for s in wanted if s not in before.scope.split()]
        offered = server.metadata.get("scopes_supported") or []
        if wanted and "offline_access" in offered and "offline_access" not in wanted:
            if self.grant == "authorization_code":
                wanted.append("offline_access")  # a refresh token, where the server offers one
        return " ".join(wanted) or None

    # -- the grant --------------------------------------------------------------------------

    async def _code(self, grant: _Grant, server: _Server, scope: str | None) -> dict[str, str]:
        if self.authorize is None:
            raise ClientError("this server needs a user to sign in: pass OAuth(authorize=...)")
        metadata = server.metadata
        verifier = secrets.token_urlsafe(64)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        state = secrets.token_urlsafe(24)
        query = {
            "response_type": "code",
            "client_id": grant.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge.decode().rstrip("="),
            "code_challenge_method": "S256",
            "state": state,
            "resource": server.resource,
        }
        if scope:
            query["scope"] = scope
        endpoint = str(metadata["authorization_endpoint"])
        joiner = "&" if "?" in endpoint else "?"
        back = parse_qs(urlsplit(await self.authorize(endpoint + joiner + urlencode(query))).query)
        if back.get("state", [None])[0] != state:
            raise ClientError("the authorization response's state is not ours: refused")
        issuer = back.get("iss", [None])[0]
        if issuer is not None and issuer != server.issuer:
            raise ClientError(f"the authorization response comes from {issuer!r}, "
                              f"not {server.issuer!r}: refused (RFC 9207)")  # fmt: skip
        if issuer is None and metadata.get("authorization_response_iss_parameter_supported"):
            raise ClientError(f"{server.issuer} promised an iss parameter and sent none: refused")
        if "error" in back:
            raise ClientError(f"authorization refused: {back['error'][0]}")
        code = back.get("code", [None])[0]
        if not code:
            raise ClientError("the authorization response has no code")
        return {"grant_type": "authorization_code", "code": code,
                "redirect_uri": self.redirect_uri, "code_verifier": verifier}  # fmt: skip

    async def _token(
        self, http: httpx.AsyncClient, server: _Server, grant: _Grant, form: dict[str, str]
    ) -> None:
        form = {**form, "resource": server.resource}
        headers: dict[str, str] = {}
        if grant.auth_method == "client_secret_basic" and grant.client_secret is not None:
            pair = f"{quote(grant.client_id, safe='')}:{quote(grant.client_secret, safe='')}"
            headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        elif grant.client_id:
            form["client_id"] = grant.client_id
            if grant.auth_method == "client_secret_post" and grant.client_secret is not None:
                form["client_secret"] = grant.client_secret
        response = await self._post_token(http, server, grant, form, headers)
        body = json_object(response)
        if response.status_code >= 400 or not isinstance(body.get("access_token"), str):
            raise ClientError(f"the token endpoint refused (HTTP {response.status_code}): "
                              f"{body.get('error', body)}")  # fmt: skip
        grant.token_type = str(body.get("token_type") or "bearer").lower()
        if self.dpop is not None and grant.token_type not in ("dpop", "bearer"):
            raise ClientError(f"the token endpoint issued a {body['token_type']!r} token")
        grant.access_token = body["access_token"]
        grant.refresh_token = body.get("refresh_token") or grant.refresh_token
        expires = body.get("expires_in")
        grant.expires_at = time.monotonic() + expires if isinstance(expires, int | float) else None

    async def _post_token(
        self,
        http: httpx.AsyncClient,
        server: _Server,
        grant: _Grant,
        form: dict[str, str],
        headers: dict[str, str],
    ) -> httpx.Response:
        """POST the token request: with a new client assertion and DPoP proof each time, once
        more when the server asks for a (new) DPoP nonce (RFC 9449 §8)."""
        endpoint = str(server.metadata["token_endpoint"])
        if self.dpop is not None:
            _check_dpop(server.metadata, self.dpop.alg, server.issuer)
        for _ in range(2):
            if grant.auth_method == "private_key_jwt" and self.client_key is not None:
                form.update(self.client_key.form(grant.client_id, server.issuer))
            sent = None
            if self.dpop is not None:
                sent = self.dpop.nonce(endpoint)
                headers["dpop"] = self.dpop.proof("POST", endpoint)
            response = await http.post(endpoint, data=form, headers=headers)
            if self.dpop is None or not self.dpop.wants_retry(endpoint, sent, response):
                break
        return response

    async def _refresh(self, url: httpx.URL) -> bool:
        grant = self._grants.get(self._current or "")
        server = self._servers.get(self._current or "")
        if grant is None or server is None or grant.refresh_token is None:
            return False
        form = {"grant_type": "refresh_token", "refresh_token": grant.refresh_token}
        grant.refresh_token = None  # used once; a new one may come back
        async with httpx.AsyncClient(trust_env=False) as http:
            try:
                await self._token(http, server, grant, form)
            except ClientError:
                return False
        return True


def _check_signing(metadata: Mapping[str, Any], alg: str, issuer: str) -> None:
    """Refuse early, and clearly, a key the server says it cannot verify."""
    methods = metadata.get("token_endpoint_auth_methods_supported")
    if isinstance(methods, list) and "private_key_jwt" not in methods:
        raise ClientError(f"{issuer} does not take private_key_jwt client authentication "
                          f"(it takes {', '.join(map(str, methods))})")  # fmt: skip
    algs = metadata.get("token_endpoint_auth_signing_alg_values_supported")
    if isinstance(algs, list) and algs and alg not in algs:
        raise ClientError(f"{issuer} verifies client assertions signed with "
                          f"{', '.join(map(str, algs))}, not {alg}")  # fmt: skip


def _check_dpop(metadata: Mapping[str, Any], alg: str, issuer: str) -> None:
    algs = metadata.get("dpop_signing_alg_values_supported")
    if isinstance(algs, list) and algs and alg not in algs:
        raise ClientError(f"{issuer} verifies DPoP proofs signed with "
                          f"{', '.join(map(str, algs))}, not {alg}")  # fmt: skip


def _metadata_places(issuer: str) -> list[str]:
    """RFC 8414 then OpenID discovery, with the issuer's path where the specs put it."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    if not path:
        return [f"{origin}/.well-known/oauth-authorization-server",
                f"{origin}/.well-known/openid-configuration"]  # fmt: skip
    return [f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{origin}/.well-known/openid-configuration{path}",
            f"{origin}{path}/.well-known/openid-configuration"]  # fmt: skip


async def _first_json(http: httpx.AsyncClient, places: list[str]) -> dict[str, Any] | None:
    for place in places:
        try:
            response = await http.get(place, headers={"accept": "application/json"})
        except httpx.HTTPError:
            continue
        body = json_object(response)
        if response.status_code == 200 and body:
            return body
    return None


def _covers(resource: str, url: str) -> bool:
    """True when ``resource`` names this server: same origin, and a path prefix of it."""
    have, want = urlsplit(resource), urlsplit(url)
    if (have.scheme, have.netloc.lower()) != (want.scheme, want.netloc.lower()):
        return False
    prefix = have.path.rstrip("/")
    return want.path.rstrip("/") == prefix or want.path.startswith(prefix + "/")
