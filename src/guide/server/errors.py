"""Translate Guide's errors into MCP errors, in one place (C7.11).

A failed interaction's structured data (`GuideError.data`, docs/errors.md)
becomes the JSON-RPC error's `data`, or the structured content of the
`read_resource` tool's error result.
"""

import logging
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from fastmcp import Context
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    MissingRequiredClientCapabilityErrorData,
    TextContent,
)

from guide.errors import AuthoringError, GuideError, MissingInputError, UnavailableError
from guide.server.eras import is_modern

T = TypeVar("T")
log = logging.getLogger("guide")
UNEXPECTED = "Guide failed unexpectedly; the server log has the details"
LOGGED = "guide_logged"
"""Marks an error Guide has already logged, so FastMCP's log of it is dropped."""


class QuietCallerErrors(logging.Filter):
    """One line per failed request in FastMCP's log: a caller's mistake at INFO, nothing twice, no traceback.

    Failures Guide itself logged (authoring errors, unexpected errors) are not
    logged again; a caller's mistake (bad input, a decline, an unknown address)
    becomes one INFO line instead of an ERROR with a traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop or shorten records about failed requests; keep everything else as it is."""
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, (MCPError, ToolError)):
            return True
        if getattr(error, LOGGED, False):
            return False
        message = error.error.message if isinstance(error, MCPError) else str(error)
        record.msg, record.args = f"{record.getMessage()}: {message}", None
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.exc_info = record.exc_text = None
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


def quiet_caller_errors() -> None:
    """Install `QuietCallerErrors` on FastMCP's server logger (once per process)."""
    server_log = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(existing, QuietCallerErrors) for existing in server_log.filters):
        server_log.addFilter(QuietCallerErrors())


def missing_capability(message: str, data: Mapping[str, Any] | None = None) -> MCPError:
    """The 2026-07-28 error for a client that must answer forms but did not declare form elicitation.

    Its `data` holds the required capabilities (`requiredCapabilities`, as the
    protocol defines) beside Guide's own failure data (docs/errors.md), in one object.
    """
    required = ClientCapabilities(elicitation=ElicitationCapability(form=FormElicitationCapability()))
    capabilities = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    merged = {**(data or {}), **capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)}
    return MCPError(code=MISSING_REQUIRED_CLIENT_CAPABILITY, message=message, data=merged)


def to_mcp(error: GuideError, *, modern: bool) -> MCPError:
    """The JSON-RPC error a client sees for a Guide error: authoring mistakes and a gone docroot are the server's, the rest the caller's.

    A failed interaction carries its structured `data` (docs/errors.md).
    """
    if modern and isinstance(error, MissingInputError):
        return missing_capability(str(error), error.data)
    code = INTERNAL_ERROR if isinstance(error, (AuthoringError, UnavailableError)) else INVALID_PARAMS
    return MCPError(code=code, message=str(error), data=dict(error.data) if error.data is not None else None)


def tool_error(error: GuideError) -> ToolError | ToolResult:
    """What the `read_resource` tool answers for a Guide error: an error result, with the failure's data as its structured content."""
    if error.data is None:
        return ToolError(str(error), log_level=logging.INFO)
    return ToolResult(content=[TextContent(type="text", text=str(error))], structured_content=dict(error.data), is_error=True)


async def guarded(ctx: Context, work: Callable[[], Awaitable[T]], *, tool: bool = False) -> T:
    """Run a request's work and translate whatever it raises, once: an MCP error, or an error result for a tool.

    An unexpected exception is logged with its traceback; the client only learns that Guide failed.
    """
    try:
        return await work()
    except GuideError as error:
        translated = tool_error(error) if tool else to_mcp(error, modern=is_modern(ctx))
        if isinstance(translated, ToolResult):
            log.info("the read_resource tool failed: %s", error)  # returned, not raised: FastMCP does not log it
            return translated  # type: ignore[return-value]
        if isinstance(error, AuthoringError):
            log.warning("authoring error: %s", error)
            setattr(translated, LOGGED, True)
        raise translated from None
    except MCPError as error:
        if tool:
            raise ToolError(error.error.message, log_level=logging.INFO) from None
        raise
    except Exception as error:
        log.error("unexpected error while serving a request: %s", one_line(error))
        translated = ToolError(UNEXPECTED) if tool else MCPError(code=INTERNAL_ERROR, message=UNEXPECTED)
        setattr(translated, LOGGED, True)
        raise translated from None


def one_line(error: BaseException) -> str:
    """An exception as one log line: its type, its message and where it was raised."""
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    where = f" (at {frame.filename}:{frame.lineno} in {frame.name})" if frame else ""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message[:500]}{where}"
