"""``genmcp.client``: an async MCP client, for agents, gateways and tests against real servers.

    async with Client("http://127.0.0.1:8000/mcp") as client:
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 1, "b": 2})

* ``client``: ``Client`` (eras, requests, MRTR rounds, lists, tasks);
* ``listen``: ``Subscription``, the change notifications as an async iterator;
* ``cache``: ``ResponseCache`` (SEP-2549's ``ttlMs``/``cacheScope`` honoured),
  ``CacheStore``, ``MemoryCacheStore``; ``group``: ``ClientGroup``, N servers as one;
* ``sampling``: model API adapters for ``sampling=`` (``sampling.openai``,
  ``sampling.anthropic``), imported on their own;
* ``exchange``: ``Handlers`` (a call's callbacks) and what arrives during a request;
* ``inputs``: answering elicitation, sampling and roots; ``session``: a 2025 session;
* ``http``, ``stdio``: the two wires; ``errors``: ``ClientError``, ``RPCError`` and the
  bounds crossed (``LimitExceeded``: ``MessageTooLarge``, ``ListingTooLong``,
  ``DeadlineExceeded``; ``ResponseMismatch``); ``limits``: ``ClientLimits``;
* ``skills``: ``Skills`` (``client.skills``), ``LoadedSkill``, ``SkillFile``: the Skills
  extension (SEP-2640) verified on read; its errors ``SkillVerificationError``
  (``DigestMismatch``, ``SizeMismatch``, ``FrontmatterMismatch``, ``UnlistedSkillFile``) and
  ``SkillTooLarge``;
* ``oauth``: ``OAuth``, MCP authorization as a client (an ``httpx.Auth``);
* ``assertions``: ``PrivateKeyJWT`` (client key), ``JWTBearer`` (workload identity) and
  ``IdentityAssertion`` (enterprise-managed) for ``OAuth``; ``dpop``: ``DPoP``, bound tokens;
  ``jws``: ``SigningKey``, the compact JWS they sign;
* ``skills``: ``Skills``, a server's skills (SEP-2640) listed, loaded and verified on read.

Built on ``genmcp.protocol`` only (below the server's layers, so a server can use it).
"""

from __future__ import annotations

from genmcp.client.assertions import IdentityAssertion, JWTBearer, PrivateKeyJWT
from genmcp.client.cache import CacheStore, MemoryCacheStore, ResponseCache
from genmcp.client.client import Client
from genmcp.client.dpop import DPoP
from genmcp.client.errors import (
    ClientError,
    DeadlineExceeded,
    DigestMismatch,
    FrontmatterMismatch,
    LimitExceeded,
    ListingTooLong,
    MessageTooLarge,
    ResponseMismatch,
    RPCError,
    SizeMismatch,
    SkillTooLarge,
    SkillVerificationError,
    UnlistedSkillFile,
)
from genmcp.client.exchange import Handlers
from genmcp.client.group import ClientGroup, GroupSubscription, Listing
from genmcp.client.jws import SigningKey
from genmcp.client.limits import ClientLimits
from genmcp.client.listen import Subscription
from genmcp.client.oauth import OAuth, follow_redirect
from genmcp.client.skills import LoadedSkill, SkillFile, Skills

__all__ = [
    "CacheStore",
    "Client",
    "ClientError",
    "ClientGroup",
    "ClientLimits",
    "DPoP",
    "DeadlineExceeded",
    "DigestMismatch",
    "FrontmatterMismatch",
    "GroupSubscription",
    "Handlers",
    "IdentityAssertion",
    "JWTBearer",
    "LimitExceeded",
    "Listing",
    "ListingTooLong",
    "LoadedSkill",
    "MemoryCacheStore",
    "MessageTooLarge",
    "OAuth",
    "PrivateKeyJWT",
    "RPCError",
    "ResponseCache",
    "ResponseMismatch",
    "SigningKey",
    "SizeMismatch",
    "SkillFile",
    "SkillTooLarge",
    "SkillVerificationError",
    "Skills",
    "Subscription",
    "UnlistedSkillFile",
    "follow_redirect",
]
