"""How large one answer may be once encoded, so that what Guide sends over HTTP is what clients take.

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB
(`DEFAULT_MAX_SSE_EVENT_SIZE` in `mcp/client/streamable_http.py`, counted in
UTF-8 bytes of the event's lines) as a transport error: the client sees its
connection fail, not why. A legacy answer always travels as such an event (a
2026-07-28 one does when it takes a moment), and JSON escaping can make a text
six times its length in bytes (a document of double quotes doubles; a character
outside ASCII takes up to four). So an answer whose encoded size passes
`MAX_MESSAGE_BYTES` is not sent over HTTP: the read fails with one line that
says so instead; a listing page past it fails naming `GUIDE_LIST_PAGE_SIZE`.
Over stdio there is no such limit, and nothing changes.
"""

import json
import logging
from collections.abc import Sequence
from typing import Any

from fastmcp import Context
from fastmcp.tools import ToolResult
from mcp_types import TextContent
from starlette.requests import Request

from guide.errors import GuideError
from guide.server.errors import to_mcp
from guide.server.logs import LOGGED

log = logging.getLogger("guide")
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


def check_sendable(ctx: Context, where: str, text: str) -> None:
    """Raise `GuideError` when `text`, sent as one answer, would pass what HTTP clients take (over HTTP only)."""
    _check(ctx, where, [text], None)


def check_result(ctx: Context, where: str, result: ToolResult | str) -> None:
    """Raise `GuideError` when a tool's result, its content and structured content together, would pass what HTTP clients take.

    A text (the `read_resource` tool's) goes out twice: as content, and as the
    structured content FastMCP makes of a tool's return value (`{"result": text}`).
    """
    if isinstance(result, str):
        _check(ctx, where, [result, result], None)  # `{"result": ...}` adds a dozen bytes: within what the bound keeps free
    else:
        _check(ctx, where, [item.text for item in result.content if isinstance(item, TextContent)], result.structured_content)


def _check(ctx: Context, where: str, texts: list[str], structured: Any) -> None:
    """The one size rule: every text of an answer and its structured content, encoded, within `MAX_MESSAGE_BYTES`."""
    if not over_http(ctx):
        return
    written = json.dumps(structured, ensure_ascii=False) if structured is not None else ""
    if (sum(map(len, texts)) + len(written)) * WIDEST <= MAX_MESSAGE_BYTES:
        return
    size = sum(map(encoded_size, texts)) + len(written.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise GuideError(
            f"the answer to {where} would be {size:,} bytes once encoded; over HTTP Guide sends at most {MAX_MESSAGE_BYTES:,} "
            f"in one message (the MCP SDK client's limit is {SDK_EVENT_LIMIT:,}), so it is not sent: make it smaller or split it"
        )


class ListingSizes:
    """Refuses, over HTTP, a listing page that would pass `MAX_MESSAGE_BYTES` once encoded, with a line naming the setting that pages it.

    A part of Guide's middleware (`guide.server.hooks`): it sees the answers to the listings only.

    Each listing is measured in its wire form once per docroot snapshot: the
    provider hands out the same components until a file changes, so the last
    measurement of each kind is kept with its first component.
    """

    KINDS = {"resources/list": "resources", "resources/templates/list": "resource templates", "prompts/list": "prompts"}
    WIRE = {
        "resources": lambda item: item.to_mcp_resource(uri=str(item.uri)),
        "resource templates": lambda item: item.to_mcp_template(uri_template=item.uri_template),
        "prompts": lambda item: item.to_mcp_prompt(name=item.name),
    }

    methods = tuple(KINDS)

    def __init__(self, page_size: int = 0) -> None:
        self.page_size = page_size
        self._measured: dict[str, tuple[Any, int, int]] = {}

    async def answered(self, context: Any, result: Any) -> Any:
        """A listing, once its largest page is known to fit."""
        return self._fitting(context, self.KINDS[context.method], result)

    def _fitting(self, context: Any, kind: str, items: Sequence[Any]) -> Sequence[Any]:
        ctx = context.fastmcp_context
        if not items or ctx is None or not over_http(ctx):
            return items
        size = self._largest_page(kind, items)
        if size > MAX_MESSAGE_BYTES:
            refused = to_mcp(GuideError(
                f"the listing of {kind} would be {size:,} bytes once encoded; over HTTP Guide sends at most {MAX_MESSAGE_BYTES:,} "
                f"in one message (the MCP SDK client's limit is {SDK_EVENT_LIMIT:,}): set GUIDE_LIST_PAGE_SIZE to list it in pages"
            ))
            setattr(refused, LOGGED, True)  # logged once per snapshot, when measured
            raise refused
        return items

    def _largest_page(self, kind: str, items: Sequence[Any]) -> int:
        kept = self._measured.get(kind)
        if kept is not None and kept[0] is items[0] and kept[1] == len(items):
            return kept[2]
        wire = self.WIRE[kind]
        sizes = [len(wire(item).model_dump_json(by_alias=True, exclude_none=True).encode("utf-8", "surrogatepass")) + 1 for item in items]
        step = self.page_size or len(sizes)
        largest = max(sum(sizes[start:start + step]) for start in range(0, len(sizes), step))
        self._measured[kind] = (items[0], len(items), largest)
        if largest > MAX_MESSAGE_BYTES:
            log.warning("the listing of %s is %d bytes once encoded, more than HTTP clients take in one message: set GUIDE_LIST_PAGE_SIZE", kind, largest)
        return largest
