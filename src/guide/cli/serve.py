"""`guide serve`: serve a docroot over stdio or streamable HTTP."""

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from guide.errors import GuideError
from guide.protocol import DEFAULT_CACHE_TTL

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide serve`."""
    parser = commands.add_parser("serve", help="serve a docroot over MCP (stdio by default)")
    parser.add_argument("--docroot", type=Path, default=example, help="the docroot (default: the bundled example)")
    parser.add_argument("--project", type=Path, default=None, help="the project folder holding the workflow state file (default: the working folder)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio, or streamable HTTP at /mcp")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument("--log-level", type=str.upper, choices=LOG_LEVELS, default="INFO", help="what the server logs to stderr (default: INFO)")
    parser.add_argument("--cache-ttl", type=int, default=DEFAULT_CACHE_TTL, metavar="SECONDS",
                        help=f"how long 2026-07-28 clients may cache listings and content that never asks (0: no hint; default: {DEFAULT_CACHE_TTL})")
    parser.add_argument(
        "--max-file-size", type=_positive(int), default=None, metavar="BYTES",
        help="the largest docroot file served, in bytes (default: 1048576); larger files are reported and skipped",
    )
    parser.add_argument(
        "--answer-timeout", type=_positive(float), default=None, metavar="SECONDS",
        help="how long a legacy read waits for the client to answer one form (default: 600)",
    )
    parser.add_argument(
        "--max-output", type=_positive(int), default=None, metavar="CHARS",
        help="the most characters one render may produce, its work included (default: 1048576); a read past it fails",
    )
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    # Imported here: loading the MCP stack takes a second that check and render do not need.
    from guide.server import http
    from guide.server.startup import configure_logging, server_for

    configure_logging(options.log_level)
    limits = {"max_file_size": options.max_file_size, "answer_timeout": options.answer_timeout, "max_output": options.max_output}
    try:
        server = server_for(options.docroot, options.project, cache_ttl=options.cache_ttl, **{k: v for k, v in limits.items() if v is not None})
    except GuideError as error:
        print(f"guide serve: {error}", file=sys.stderr)
        return 2
    if options.transport == "stdio":
        server.run(transport="stdio", show_banner=False)
    else:
        for line in http.startup_warnings(options.host, os.environ, authenticated=server.auth is not None):
            print(f"guide serve: {line}", file=sys.stderr)
        server.run(transport="http", host=options.host, port=options.port, path="/mcp", show_banner=False, **http.run_options(os.environ))
    return 0


def _positive(kind: type) -> Callable[[str], Any]:
    """An argparse type: a number of `kind` greater than 0."""

    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0 or value != value or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
        return value

    return read
