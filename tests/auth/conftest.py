"""Fixtures for the auth tests: a real authorization server and the protected example app.

- `authorization_server`: one oidc-provider under node for the session
  (`support.authorization_server`); skipped when node/npm are missing, a failure under `CI`.
- `protected`: `examples/protected_app.py` configured by its environment variables for that
  AS and `RESOURCE`, under a real uvicorn; gives its base URL and the AS.
- `documents`: a loopback server whose answers a test sets path by path (a JWKS, metadata,
  an introspection endpoint saying what the real AS never says); it records each request.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.authorization_server import AuthorizationServer, authorization_problem
from support.documents import Documents
from support.examples import load
from support.oauth import OPAQUE_RESOURCE, RESOURCE, Protected
from support.required import unavailable
from support.server import LiveServer, LiveServers


@pytest.fixture(scope="session")
def authorization_server() -> Iterator[AuthorizationServer]:
    problem = authorization_problem()
    if problem is not None:
        unavailable(problem, "the auth tests")
    server = AuthorizationServer(opaque=(OPAQUE_RESOURCE,))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def protected(authorization_server: AuthorizationServer, live_server: LiveServers) -> Protected:
    env = {"MCP_RESOURCE": RESOURCE, "MCP_ISSUER": authorization_server.issuer}
    app = load("protected_app").create_app(env)
    return Protected(live_server(app), authorization_server)


@pytest.fixture(scope="session")
def _documents_server() -> Iterator[Documents]:
    documents = Documents(url="")
    server = LiveServer(documents, lifespan="off")
    documents.url = server.start()
    try:
        yield documents
    finally:
        server.stop()


@pytest.fixture
def documents(_documents_server: Documents) -> Documents:
    _documents_server.answers.clear()
    _documents_server.seen.clear()
    _documents_server.delay_s = 0.0
    return _documents_server
