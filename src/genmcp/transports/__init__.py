"""Transports: how a Suite reaches clients (Streamable HTTP via FastAPI, stdio)."""
