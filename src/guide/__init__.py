"""Guide: an MCP server for Markdown/Mustache commands and skills that ask for their inputs."""

__version__ = "0.1.0"
