"""One installer at a time for a `.cache/<name>` directory the tests fill from npm.

Under pytest-xdist two workers can reach the same first-use install together (the auth
tests of two files both want oidc-provider); two `npm install --prefix` into one folder
corrupt it. `installing(cache)` holds an exclusive `flock` on `<cache>.lock` beside the
folder: the second worker waits, then finds the packages there (callers check again inside
the lock). Blocking, no timeout: the install itself is bounded by its own subprocess timeout.

Imports nothing of genmcp or of the other helpers.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

__all__ = ["installing"]


@contextlib.contextmanager
def installing(cache: Path) -> Iterator[None]:
    """Hold the install lock of ``cache`` (created with its parent) for the block."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    with (cache.parent / f"{cache.name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
