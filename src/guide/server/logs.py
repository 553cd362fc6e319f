"""Where a server's log goes, in one format for every line: Guide's, FastMCP's and uvicorn's.

Standard error only (standard output belongs to the stdio transport), one
plain line per record, never wrapped: `TIME LEVEL LOGGER: message`. A failed
request is logged once: Guide logs its own failures (authoring errors,
unexpected errors), and a caller's mistake becomes one INFO line instead of
FastMCP's ERROR with a traceback (`QuietCallerErrors`). This is set up once, as
a server starts, never from a request.
"""

import logging
import sys

from fastmcp.exceptions import ToolError
from mcp import MCPError

from guide.text import for_log

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_LINE_LENGTH = 2000
"""The most characters of a record's message a line writes (before escaping): its start and its end, the middle counted."""
_KEPT_END = 500
"""Of those, the characters kept from the message's end, where an error line says why."""
LOGGERS = ("guide", "fastmcp", "mcp", "uvicorn", "uvicorn.error", "uvicorn.access")
"""The loggers a server writes to: Guide's own, FastMCP's, the MCP SDK's and uvicorn's (HTTP only)."""
LOGGED = "guide_logged"
"""Marks an error Guide has already logged, so FastMCP's log of it is dropped."""


class QuietCallerErrors(logging.Filter):
    """One line per failed request in FastMCP's log: a caller's mistake at INFO, nothing twice, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop or shorten records about failed requests; keep everything else as it is."""
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, (MCPError, ToolError)):
            return True
        if getattr(error, LOGGED, False):
            return False
        message = error.error.message if isinstance(error, MCPError) else str(error)
        message = message.partition("\n")[0]  # the agent channel's questions follow a failure's first line (C7.12 c)
        record.msg, record.args = f"{record.getMessage()}: {message}", None
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.exc_info = record.exc_text = None
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


class OneLine(logging.Formatter):
    """A record's message on one short line whatever a client put in it: clipped, newlines, controls and bidi overrides escaped.

    A traceback is kept, each of its lines indented, so that no line but a
    record's own begins at the margin (an exception's message may hold a client's text).
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The line for `record`, its message clipped (`LOG_LINE_LENGTH`) and escaped by `guide.text.for_log`."""
        record.message = for_log(clipped(record.message), length=None)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        """The record's line, then its traceback or stack (as another handler may have written it first), every line indented."""
        line, _, rest = super().format(record).partition("\n")
        return f"{line}\n{_indented(rest)}" if rest else line


def clipped(message: str, length: int = LOG_LINE_LENGTH) -> str:
    """`message` at most `length` characters long: its start and its end, with how many characters between were left out."""
    if len(message) <= length:
        return message
    head = length - _KEPT_END
    return f"{message[:head]} ...({len(message) - length:,} characters left out)... {message[-_KEPT_END:]}"


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def quiet_caller_errors() -> None:
    """Install `QuietCallerErrors` on FastMCP's server logger (once per process)."""
    server_log = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(existing, QuietCallerErrors) for existing in server_log.filters):
        server_log.addFilter(QuietCallerErrors())


def configure(level: str) -> None:
    """Send every server logger to standard error at `level`, one plain line per record in one format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine(FORMAT))
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for existing in logger.handlers[:]:
            logger.removeHandler(existing)
        logger.propagate = False
        if "." not in name:  # a child logger writes through its parent's handler
            logger.addHandler(handler)
            # The MCP SDK says at INFO what FastMCP says again: only its warnings are worth a line.
            logger.setLevel(level if name != "mcp" or level == "DEBUG" else max(logging.getLevelName(level), logging.WARNING))
    for name in ("uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).propagate = True
    quiet_caller_errors()
