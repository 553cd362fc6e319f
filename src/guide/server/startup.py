"""Starting Guide: the checks every way of starting makes (`guide serve`, fastmcp.json) and where logs go."""

import logging
import sys
from pathlib import Path
from typing import Any

from fastmcp import FastMCP

from guide.errors import GuideError
from guide.protocol import DEFAULT_CACHE_TTL
from guide.server.app import create_server


def server_for(docroot: Path, project: Path | None = None, *, cache_ttl: int = DEFAULT_CACHE_TTL, **limits: Any) -> FastMCP:
    """The server for a docroot a user named; a one-line GuideError if it is not a folder or a setting is wrong.

    `limits` are `create_server`'s `max_file_size`, `answer_timeout` and `max_output`.
    """
    if not docroot.is_dir():
        raise GuideError(f"docroot {docroot} is not a folder")
    return create_server(docroot, project, cache_ttl=cache_ttl, **limits)


def configure_logging(level: str) -> None:
    """Send Guide's and FastMCP's log to stderr at `level`, one line per record (stdout belongs to the stdio transport)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("guide", "fastmcp"):
        logger = logging.getLogger(name)
        for existing in logger.handlers[:]:
            logger.removeHandler(existing)
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
