"""How large one answer may be once encoded, so that what Guide sends over HTTP is what clients take.

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB
(`DEFAULT_MAX_SSE_EVENT_SIZE` in `mcp/client/streamable_http.py`, counted in
UTF-8 bytes of the event's lines) as a transport error: the client sees its
connection fail, not why. A legacy answer always travels as such an event (a
2026-07-28 one does when it takes a moment), and JSON escaping can make a text
six times its length in bytes (a document of double quotes doubles; a character
outside ASCII takes up to four). So an answer whose encoded size passes
`MAX_MESSAGE_BYTES` is not sent over HTTP: the read fails with one line that
says so instead. Over stdio there is no such limit, and nothing changes.
"""

import json

from fastmcp import Context
from starlette.requests import Request

from guide.errors import GuideError

SDK_EVENT_LIMIT = 1024 * 1024
"""The MCP SDK HTTP client's largest server-sent event, in bytes."""
MAX_MESSAGE_BYTES = SDK_EVENT_LIMIT - 8 * 1024
"""The most bytes an answer's text may take once encoded: the rest is kept for the message around it (address, ids, event lines)."""
WIDEST = 6
"""The most bytes one character can take once JSON-escaped (a control character as \\u00XX)."""


def over_http(ctx: Context) -> bool:
    """Whether this request came over HTTP (its answer goes out as a server-sent event or an HTTP body)."""
    context = ctx.request_context
    return context is not None and isinstance(context.request, Request)


def encoded_size(text: str) -> int:
    """The bytes `text` takes as a JSON string in UTF-8, quotes included."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def check_sendable(ctx: Context, where: str, text: str, copies: int = 1) -> None:
    """Raise `GuideError` when `text`, sent `copies` times in one answer, would pass what HTTP clients take (over HTTP only)."""
    if len(text) * WIDEST * copies <= MAX_MESSAGE_BYTES or not over_http(ctx):
        return
    size = encoded_size(text) * copies
    if size > MAX_MESSAGE_BYTES:
        raise GuideError(
            f"the answer to {where} would be {size:,} bytes once encoded; over HTTP Guide sends at most {MAX_MESSAGE_BYTES:,} "
            f"in one message (the MCP SDK client's limit is {SDK_EVENT_LIMIT:,}), so it is not sent: make it smaller or split it"
        )
