"""Transports: how a Suite reaches clients: the HTTP wire (``http``) and stdio (``stdio``).

The FastAPI adapter that serves the HTTP wire is ``genmcp.fastapi``; the 2025 session engine
both transports serve is ``genmcp.sessions``.
"""
