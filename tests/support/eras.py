"""The two protocol eras every client-facing test runs in."""

MODES = ("legacy", "2026-07-28")
"""FastMCP `Client(mode=...)`: the handshake era, and the MCP 2026-07-28 era (`input_required` results)."""
