"""Translate Guide's errors into MCP errors, in one place (C7.11)."""

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastmcp import Context
from fastmcp.exceptions import ToolError
from mcp import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    MissingRequiredClientCapabilityErrorData,
)

from guide.errors import AuthoringError, GuideError, MissingInputError
from guide.server.eras import is_modern

T = TypeVar("T")
log = logging.getLogger("guide")
UNEXPECTED = "Guide failed unexpectedly; the server log has the details"


class QuietCallerErrors(logging.Filter):
    """Log a caller's mistake (bad input, a decline, an unknown address) as one INFO line, not an ERROR traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Downgrade records about caller errors; keep everything else as it is."""
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, (MCPError, ToolError)) or getattr(getattr(error, "error", None), "code", None) == INTERNAL_ERROR:
            return True
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


def missing_capability(message: str) -> MCPError:
    """The 2026-07-28 error for a client that must answer forms but did not declare form elicitation."""
    required = ClientCapabilities(elicitation=ElicitationCapability(form=FormElicitationCapability()))
    data = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=message,
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


def to_mcp(error: GuideError, *, modern: bool) -> MCPError:
    """The JSON-RPC error a client sees for a Guide error: authoring mistakes are the server's, the rest the caller's."""
    if modern and isinstance(error, MissingInputError):
        return missing_capability(str(error))
    code = INTERNAL_ERROR if isinstance(error, AuthoringError) else INVALID_PARAMS
    return MCPError(code=code, message=str(error))


async def guarded(ctx: Context, work: Callable[[], Awaitable[T]], *, tool: bool = False) -> T:
    """Run a request's work and translate whatever it raises, once: an MCP error, or an error result for a tool.

    An unexpected exception is logged with its traceback; the client only learns that Guide failed.
    """
    try:
        return await work()
    except GuideError as error:
        if tool:  # C7.11: a tool reports every failure as an error result, missing input included
            raise ToolError(str(error), log_level=logging.INFO) from None
        raise to_mcp(error, modern=is_modern(ctx)) from None
    except MCPError as error:
        if tool:
            raise ToolError(error.error.message, log_level=logging.INFO) from None
        raise
    except Exception:
        log.exception("unexpected error while serving a request")
        if tool:
            raise ToolError(UNEXPECTED) from None
        raise MCPError(code=INTERNAL_ERROR, message=UNEXPECTED) from None
