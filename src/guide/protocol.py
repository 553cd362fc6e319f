"""Names Guide puts on the MCP wire, shared by the server and the `guide try` client."""

SERVER_NAME = "guide"
ROUTE_PROMPT = "guide"
"""The prompt that takes a command route (`_review --mode=branch`)."""
MIME = "text/markdown"
HELP = "help"
"""The keyword (`?help`) and command (`guide://_help`) that ask for help: no field may be named so."""
PROJECT = "project"
"""The keyword (`?project=<path>`) and prompt flag (`--project`) that name the project of a read (C10): no field may be named so."""
FORM_META = "guide/form"
"""The `_meta` key of an elicitation request that names the Guide form it asks for."""
DEFAULT_CACHE_TTL = 5
"""Seconds a 2026-07-28 client may keep a listing, or content that never asks, before asking again."""
READ_TOOL = "read_resource"
"""Guide's tool that reads a `guide://` address, for clients that only call tools."""


def tool_named(name: str) -> str:
    """One of Guide's tools as its texts name it, in words that still find it when a client or gateway prefixes its name."""
    return f"Guide's `{name}` tool (listed as `{name}` or with a prefix, such as `guide_{name}`)"
