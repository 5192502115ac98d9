"""MCP wire protocol: JSON-RPC envelopes, revisions, and per-revision shapes."""
