"""MCP wire protocol: JSON-RPC envelopes, revisions, and per-revision shapes.

Every module here is pure: no I/O, nothing from asyncio or any web framework, and nothing
from genmcp outside ``protocol/`` but ``genmcp.errors`` (tests/layout/ checks it).
"""
