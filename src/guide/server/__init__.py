"""The MCP edge: FastMCP components, both protocol eras, errors and the docroot watch."""
