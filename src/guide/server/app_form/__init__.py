"""The App form's MCP components: its page, the two tools that carry its rounds, and the state the page holds."""
