"""Run uvicorn on a listening socket handed down by the parent, not on a port of its own.

``python serve_socket.py FD APP_DIR APP GRACEFUL_S``: ``topology.Processes`` binds and listens
on each port when it picks it and hands the socket (file descriptor ``FD``) to this process,
so the port is never free between the two: picked free and given to uvicorn's ``--port``, it
could be taken meanwhile by another test's server (a machine shared by several test runs),
whose answers the deployment then served (a DPoP proof without a nonce answered 200 by an
MCP app without auth, in 1 of 30 runs of ``test_dpop_nginx``). The rest is uvicorn's CLI as
``Processes`` gave it: no access log, warnings only, the graceful shutdown's timeout
(``none``: uvicorn's default, no limit).
"""

from __future__ import annotations

import socket
import sys

import uvicorn


def main() -> None:
    fd, app_dir, app, graceful_s = sys.argv[1:5]
    sys.path.insert(0, app_dir)  # as uvicorn's --app-dir
    listening = socket.socket(fileno=int(fd))  # family and type read from the descriptor
    graceful = None if graceful_s == "none" else float(graceful_s)
    config = uvicorn.Config(app, access_log=False, log_level="warning",
                            timeout_graceful_shutdown=graceful)  # type: ignore[arg-type]
    uvicorn.Server(config).run(sockets=[listening])


if __name__ == "__main__":
    main()
