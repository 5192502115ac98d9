"""Helpers for genmcp's own tests: a real uvicorn server, a modern MCP client, wire schemas.

A plain package on `sys.path` through pytest's `pythonpath = ["tests"]`; import it as
`support.<module>`. It never imports genmcp: the helpers check genmcp from the outside.
"""
