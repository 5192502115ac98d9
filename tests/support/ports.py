"""Loopback ports held from the moment they are picked.

A port picked free (bound to 0, read, released) and given to a server that binds it later
can be taken meanwhile by another server: on a machine running several test runs (xdist
workers, CI jobs) a parallel worker's uvicorn or Redis did, and the test then failed to
start, or talked to that server. ``listening(0)`` picks a port and keeps listening on it;
the server is handed that socket (``handing``: a child process inherits its descriptor;
uvicorn in this process serves it, ``LiveServer(sock=)``), so the port is never free.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

__all__ = ["handing", "listening"]


def listening(port: int) -> socket.socket:
    """A socket listening on loopback ``port`` (0: a free one), as uvicorn would bind it."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        held.bind(("127.0.0.1", port))
        held.listen(2048)
    except OSError:
        held.close()
        raise
    return held


@contextlib.contextmanager
def handing(held: socket.socket | None, port: int) -> Iterator[int]:
    """The descriptor of a socket listening on ``port`` for a child process to inherit:
    ``held``, or bound again when it is gone or on another port (a restart, a port changed:
    an ``OSError`` if another listener took it meanwhile); closed once the child has its
    copy (the child's copy listens: when it dies, connections are refused)."""
    if held is None or held.getsockname()[1] != port:
        if held is not None:
            held.close()
        held = listening(port)
    try:
        yield held.fileno()
    finally:
        held.close()
