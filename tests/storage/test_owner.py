"""storage.owner: the owner keys, namespaced by kind and issuer, and what reads them.

Over real servers (every store and binding): tests/auth/test_tokens_owners.py.
"""

from __future__ import annotations

import json
from typing import Any, Final

from genmcp.auth import AccessToken
from genmcp.storage.owner import anonymous, owner_key, owner_of

ISSUER: Final = "https://issuer.one"
OTHER_ISSUER: Final = "https://issuer.two"


def test_owner_keys_are_namespaced_and_unambiguous() -> None:
    user = owner_key("user", ISSUER, "alice")
    assert user != owner_key("client", ISSUER, "alice") != owner_key("user", OTHER_ISSUER, "alice")
    assert json.loads(user) == ["user", ISSUER, "alice"]
    # a separator inside a value cannot forge another owner
    assert owner_key("user", "a", "b,c") != owner_key("user", "a,b", "c")
    assert anonymous("t1") != anonymous("t2") and anonymous("t1") == anonymous("t1")
    assert "t1" not in anonymous("t1")  # a digest, never the token
    assert owner_of({"owner": user, "principal": "alice"}) == user
    assert owner_of({"principal": "bob", "sub": "x"}) == "bob"  # a plain dependency's
    assert owner_of({"sub": 42}) == "42" and owner_of({}) is None


def test_an_access_token_owns_as_user_client_or_no_one() -> None:
    def token(**fields: Any) -> AccessToken:
        return AccessToken(scopes=frozenset(), audience=(), **{"subject": None, **fields})

    assert token(subject="alice", issuer=ISSUER).owner == owner_key("user", ISSUER, "alice")
    assert token(client_id="alice", issuer=ISSUER).owner == owner_key("client", ISSUER, "alice")
    assert token(subject="s", client_id="c").owner == owner_key("user", None, "s")
    assert token().owner is None
    assigns = token(client_id="alice", issuer=ISSUER).assigns(())
    assert assigns["principal"] == "alice"  # for people and logs
    assert assigns["owner"] == owner_key("client", ISSUER, "alice")
