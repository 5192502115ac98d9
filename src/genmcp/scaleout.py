"""What running several processes of one app needs, from one import path.

``from genmcp.scaleout import LegacyServer, RedisBroker, RedisSessionRegistry`` (Redis needs
the ``genmcp[redis]`` extra). See the README's "Scaling out with Redis".
"""

from genmcp.storage.redis import RedisBroker, RedisSessionRegistry
from genmcp.transports.legacy import LegacyServer

__all__ = ["LegacyServer", "RedisBroker", "RedisSessionRegistry"]
