"""Records used once, for the OAuth parts: ``RecordStore`` and ``ProofReplays``.

``RecordStore`` keeps what an authorization server (``genmcp.auth.front``) holds between the
steps of a grant, each record taken once (a spent marker recognises a replay);
``ProofReplays`` keeps the DPoP proofs' ``jti`` seen in a window (``genmcp.auth.dpop``), so a
second sighting in any process sharing the store is a replay. Implemented by
``memory.records`` / ``memory.replays`` and ``redis.records`` / ``redis.replays``. Imports
nothing from genmcp.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ProofReplays", "RecordStore"]


@runtime_checkable
class RecordStore(Protocol):
    """Expiring JSON records, ``kind`` (a short name) and ``key`` (an unguessable token).

    ``put`` stores a record with a ``tag`` (e.g. the grant it belongs to); ``take`` removes
    it atomically, once: the first caller gets ``(value, None)`` and leaves a spent marker
    holding the tag for ``spent_ttl_s``; a later caller gets ``(None, tag)`` (a replay, whose
    grant can then be revoked), or ``(None, None)`` when there never was such a record.
    ``admit`` reserves one of at most ``limit`` live places of ``kind`` for ``ttl_s`` (the
    bound of dynamic registrations across processes): False when they are all taken.
    """

    async def put(self, kind: str, key: str, value: Any, ttl_s: float, *, tag: str = "") -> None:
        """Store ``value`` under ``key`` for ``ttl_s`` (replacing any record there)."""
        ...

    async def get(self, kind: str, key: str) -> Any:
        """The live record ``key``, or None."""
        ...

    async def take(self, kind: str, key: str, spent_ttl_s: float = 0.0) -> tuple[Any, str | None]:
        """Remove and return the record ``key`` once; see the class."""
        ...

    async def admit(self, kind: str, key: str, ttl_s: float, limit: int) -> bool:
        """Reserve a place of ``kind`` for ``key`` during ``ttl_s``, if fewer than ``limit``
        are live."""
        ...


@runtime_checkable
class ProofReplays(Protocol):
    """Keys seen once: ``first`` records ``key`` for ``ttl_s`` atomically, and says whether it
    was new. A DPoP resource keeps each proof's ``jti`` here for as long as the proof's
    ``iat`` would be accepted, so a proof shown twice (to any process sharing the store) is
    refused the second time. A store that cannot answer raises ``StorageUnavailable``: a
    proof is never accepted unchecked.
    """

    async def first(self, key: str, ttl_s: float) -> bool:
        """True when ``key`` was not seen in its ``ttl_s`` (it is now); False: a replay."""
        ...
