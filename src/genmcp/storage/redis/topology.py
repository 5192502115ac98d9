"""Which Redis a URL names: one server, a Redis Cluster, or a master watched by Sentinel.

``redis://`` / ``rediss://`` / ``unix://`` URLs are redis-py's own (one server). Two more
schemes name several servers, which ``urllib`` cannot split (a list of hosts):

- ``redis+cluster://[user:password@]host:port[,host:port...][?option=value]``: a Redis Cluster
  reached through any of the nodes listed (the client learns the others, and every slot);
  ``rediss+cluster://`` for TLS.
- ``redis+sentinel://[user:password@]host:port[,host:port...]/<service>[/<db>]``: the master
  that the Sentinels listed name ``service`` (``mymaster`` when left out), asked again on
  every reconnection, so a failover is followed; ``rediss+sentinel://`` for TLS to the master.

Query options (``?client_name=x``) are passed to the connections as strings, except the few
whose type redis-py needs (timeouts as floats). Knows no client: only parses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias
from urllib.parse import parse_qsl, unquote

from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

__all__ = ["CLUSTER", "NODE_OPTIONS", "SENTINEL", "Client", "Topology", "parse_url"]

Client: TypeAlias = "aioredis.Redis | RedisCluster"
"""A request-path client: one server (or a Sentinel-named master), or a cluster."""

CLUSTER: Final = "cluster"
SENTINEL: Final = "sentinel"
_SCHEMES: Final = {
    "redis+cluster": (CLUSTER, False),
    "rediss+cluster": (CLUSTER, True),
    "redis+sentinel": (SENTINEL, False),
    "rediss+sentinel": (SENTINEL, True),
}
NODE_OPTIONS: Final[tuple[str, ...]] = (
    "username",
    "password",
    "client_name",
    "ssl",
    "ssl_ca_certs",
    "ssl_certfile",
    "ssl_keyfile",
    "ssl_cert_reqs",
)
"""The options of a cluster client that another connection to one of its nodes keeps."""
_FLOATS: Final = ("socket_timeout", "socket_connect_timeout", "health_check_interval")


@dataclass(frozen=True, slots=True)
class Topology:
    """Several servers named by one URL: their kind, the nodes listed, the connection options."""

    kind: str
    nodes: list[tuple[str, int]]
    service: str = ""
    connection: dict[str, Any] = field(default_factory=dict)


def _node(text: str, url: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"Redis URL {url!r}: {text!r} is not host:port")
    return host.strip("[]"), int(port)


def parse_url(url: str) -> Topology | None:
    """The cluster or Sentinel ``url`` names; None for a one-server URL (redis-py parses it)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in _SCHEMES:
        return None
    kind, tls = _SCHEMES[scheme.lower()]
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    connection: dict[str, Any] = {}
    userinfo, at, hosts = netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if colon:
            connection["password"] = unquote(password)
        if user:
            connection["username"] = unquote(user)
    nodes = [_node(part, url) for part in hosts.split(",") if part]
    if not nodes:
        raise ValueError(f"Redis URL {url!r} names no host:port")
    for name, value in parse_qsl(query):
        connection[name] = float(value) if name in _FLOATS else value
    if tls:
        connection["ssl"] = True
    parts = [unquote(part) for part in path.split("/") if part]
    if kind == CLUSTER:
        if parts and parts != ["0"]:
            raise ValueError(f"Redis URL {url!r}: a cluster has only database 0")
        return Topology(kind, nodes, "", connection)
    service = parts[0] if parts else "mymaster"
    if len(parts) > 1:
        if not parts[1].isdigit():
            raise ValueError(f"Redis URL {url!r}: the database {parts[1]!r} is not a number")
        connection["db"] = int(parts[1])
    return Topology(kind, nodes, service, connection)
