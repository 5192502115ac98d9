"""``MemoryProofReplays``: the DPoP proofs one process has seen (``ProofReplays``).

An ordered map of key -> expiry, pruned from the oldest as it goes. Unlike ``Expiring`` it
never forgets a live key to make room (a forgotten ``jti`` would let its proof be shown
again): when it is full of live keys, ``first`` raises ``StorageUnavailable`` (503 and a
retry) until some expire. Runs on the server's event loop; not thread-safe, and need not be.
Imports ``storage.guard`` only.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from genmcp.storage.guard import StorageUnavailable

__all__ = ["MemoryProofReplays"]


class MemoryProofReplays:
    """``ProofReplays`` in one process.

    Args:
        max_entries: live keys kept at most (at 60 s per proof: 100,000 proofs a minute).
    """

    def __init__(self, *, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._seen: OrderedDict[str, float] = OrderedDict()

    async def first(self, key: str, ttl_s: float) -> bool:
        now = time.monotonic()
        seen = self._seen
        while seen:  # keys are roughly in expiry order (one TTL per policy): stop at a live one
            oldest, expires = next(iter(seen.items()))
            if expires > now:
                break
            del seen[oldest]
        live = seen.get(key)
        if live is not None and live > now:
            return False
        if len(seen) >= self.max_entries:
            raise StorageUnavailable("the DPoP replay cache", "full of live proofs")
        seen[key] = now + max(ttl_s, 0.0)
        return True

    def __len__(self) -> int:
        return len(self._seen)
