"""``RedisPart``: what every Redis store has, a client (borrowed or its own) and a breaker.

A store built on a client (``RedisTaskStore(client, prefix=...)``) borrows it: its ``aclose``
leaves the client open for whoever made it (``RedisStores`` shares one client among all the
stores of a process). One built by ``from_url`` makes its client with ``RedisOptions`` and
closes it in its ``aclose``. ``OnRedis`` is that one construction path, of a part and of
``RedisStores`` alike. The broker, the session registry, the task store, the buckets
and the record store are parts; each adds its scripts to ``__init__`` (which takes the
``PartOptions`` on) and what else it holds to ``aclose``. Requires the ``redis`` package.
"""

from __future__ import annotations

from typing import Any, Final, Self, TypedDict, Unpack

from genmcp.protocol.shapes import check_keywords
from genmcp.storage.redis.options import RedisOptions
from genmcp.storage.redis.topology import Client

__all__ = ["DEFAULT_PREFIX", "OnRedis", "PartOptions", "RedisPart", "close_client"]

DEFAULT_PREFIX: Final = "genmcp:"
"""Prefix of every key and channel unless told otherwise."""


class PartOptions(TypedDict, total=False):
    """The keyword arguments of every part after its client: ``RedisPart``'s, which a part's
    ``__init__`` takes as ``**part: Unpack[PartOptions]`` and hands on unchanged.

    Attributes:
        prefix: prefix of every key; the processes of one app share it (``DEFAULT_PREFIX``).
        options: the client's and breaker's settings (None: ``RedisOptions()``).
    """

    prefix: str
    options: RedisOptions | None


_PART_KEYWORDS: Final = PartOptions.__optional_keys__


async def close_client(closeable: Any) -> None:
    """``aclose()`` a client or pub/sub object (redis 5.0.0 only has ``close()``)."""
    await (getattr(closeable, "aclose", None) or closeable.close)()


class OnRedis:
    """What lives on one Redis client under one key prefix (a part, or ``RedisStores``, all
    of them): ``from_url`` makes it on a client of its own, which its ``aclose`` closes."""

    __slots__ = ()

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        options: RedisOptions | None = None,
        **connection: Any,
    ) -> Self:
        """Made on its own client for ``url``, made with ``options`` (and ``connection``
        options such as ``client_name``); its ``aclose`` closes that client. Nothing connects
        before the first command, so this may run at import, in each worker process (never
        before a fork)."""
        options = RedisOptions() if options is None else options
        return cls._owning(options.client(url, **connection), prefix=prefix, options=options)

    @classmethod
    def _owning(cls, client: Client, **part: Unpack[PartOptions]) -> Self:
        """Made on ``client``, which its ``aclose`` is to close."""
        raise NotImplementedError


class RedisPart(OnRedis):
    """A store on one Redis client, under one key prefix, behind one breaker.

    Args:
        client: a ``redis.asyncio.Redis`` or ``RedisCluster`` (left open by ``aclose``);
            make it with ``RedisOptions().client(url)`` for the documented timeouts and pool.
        part: ``PartOptions``: ``prefix`` (of every key; the processes of one app share it)
            and ``options`` (the breaker's deadline and cooldown; ``RedisOptions`` defaults).
    """

    def __init__(self, client: Client, **part: Unpack[PartOptions]) -> None:
        check_keywords(part, _PART_KEYWORDS, type(self).__name__)
        self._client, self._prefix = client, part.get("prefix", DEFAULT_PREFIX)
        self._owns_client = False
        options = part.get("options")
        self.options = RedisOptions() if options is None else options
        self.breaker = self.options.breaker()

    @classmethod
    def _owning(cls, client: Client, **part: Unpack[PartOptions]) -> Self:
        made = cls(client, **part)
        made._owns_client = True
        return made

    async def aclose(self) -> None:
        """Close the client if ``from_url`` made it."""
        if self._owns_client:
            await close_client(self._client)
