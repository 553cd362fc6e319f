"""Translate Guide's errors into MCP errors, in one place (C7.11)."""

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

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

from guide.errors import AuthoringError, GuideError

T = TypeVar("T")
log = logging.getLogger("guide")


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


def to_mcp(error: GuideError) -> MCPError:
    """The JSON-RPC error a client sees for a Guide error: authoring mistakes are the server's, the rest the caller's."""
    code = INTERNAL_ERROR if isinstance(error, AuthoringError) else INVALID_PARAMS
    return MCPError(code=code, message=str(error))


async def guarded(work: Callable[[], Awaitable[T]]) -> T:
    """Run a request's work; Guide errors become MCP errors and nothing else escapes unexplained."""
    try:
        return await work()
    except GuideError as error:
        raise to_mcp(error) from None
    except MCPError:
        raise
    except Exception as error:
        log.exception("unexpected error while serving a request")
        raise MCPError(code=INTERNAL_ERROR, message=f"Guide failed unexpectedly: {type(error).__name__}: {error}") from None
