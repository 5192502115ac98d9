"""The HTTP wire: Streamable HTTP's rules, ASGI, the one SSE writer, gzip, the relay's writer.

Framework-free (ASGI messages only): the FastAPI adapter (``genmcp.fastapi``) mounts the
endpoint that serves through these modules.
"""
