"""Translate Guide's errors into MCP errors, in one place (C7.11).

A failed interaction's structured data (`GuideError.data`, docs/errors.md)
becomes the JSON-RPC error's `data`, or the structured content of the
`read_resource` tool's error result.
"""

import logging
import traceback
from collections.abc import Callable
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, TextContent

from guide.errors import AuthoringError, GuideError, UnavailableError
from guide.server.logs import LOGGED

log = logging.getLogger("guide")
UNEXPECTED = "Guide failed unexpectedly; the server log has the details"


def to_mcp(error: GuideError) -> MCPError:
    """The JSON-RPC error a client sees for a Guide error: authoring mistakes and a gone docroot are the server's, the rest the caller's.

    A failed interaction carries its structured `data` (docs/errors.md). An era
    may say an error its own way (see `guide.server.eras`).
    """
    code = INTERNAL_ERROR if isinstance(error, (AuthoringError, UnavailableError)) else INVALID_PARAMS
    return MCPError(code=code, message=str(error), data=dict(error.data) if error.data is not None else None)


def tool_error(error: GuideError) -> ToolError | ToolResult:
    """What the `read_resource` tool answers for a Guide error: an error result, with the failure's data as its structured content."""
    if error.data is None:
        return ToolError(str(error), log_level=logging.INFO)
    return ToolResult(content=[TextContent(type="text", text=str(error))], structured_content=dict(error.data), is_error=True)


def answer_to(error: Exception, translate: Callable[[GuideError], MCPError], *, tool: bool = False) -> Any:
    """Answer a request whose work raised `error`: raise its MCP error, or return a tool's error result.

    Called from the `except` of the request's own code, so no frame of this module sits on a read's path while it runs;
    `translate` is the era's. An unexpected exception is logged with its traceback; the client only learns that Guide failed.
    """
    if isinstance(error, GuideError):
        translated = tool_error(error) if tool else translate(error)
        if isinstance(translated, ToolResult):
            log.info("the read_resource tool failed: %s", str(error).partition("\n")[0])  # returned, not raised: FastMCP does not log it
            return translated
        if isinstance(error, AuthoringError):
            log.warning("authoring error: %s", error)
            setattr(translated, LOGGED, True)
        raise translated from None
    if isinstance(error, MCPError):
        if tool:
            raise ToolError(error.error.message, log_level=logging.INFO) from None
        raise error
    log.error("unexpected error while serving a request: %s", one_line(error))
    unexpected = ToolError(UNEXPECTED) if tool else MCPError(code=INTERNAL_ERROR, message=UNEXPECTED)
    setattr(unexpected, LOGGED, True)
    raise unexpected from None


def one_line(error: BaseException) -> str:
    """An exception as one log line: its type, its message and where it was raised."""
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" (at {frame.filename}:{frame.lineno} in {frame.name})" if frame else ""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message[:500]}{where}"
