"""`guide serve`: serve a docroot over stdio or streamable HTTP."""

import argparse
import sys
from pathlib import Path

from guide.errors import GuideError


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide serve`."""
    parser = commands.add_parser("serve", help="serve a docroot over MCP (stdio by default)")
    parser.add_argument("--docroot", type=Path, default=example, help="the docroot (default: the bundled example)")
    parser.add_argument("--project", type=Path, default=None, help="the project folder holding the workflow state file (default: the working folder)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio, or streamable HTTP at /mcp")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    # Imported here: loading the MCP stack takes a second that check and render do not need.
    from guide.server.app import create_server

    if not options.docroot.is_dir():
        print(f"guide serve: {options.docroot} is not a folder", file=sys.stderr)
        return 2
    if not sys.stderr.isatty():
        _plain_log_lines()
    try:
        server = create_server(options.docroot, options.project)
    except GuideError as error:
        print(f"guide serve: {error}", file=sys.stderr)
        return 2
    if options.transport == "stdio":
        server.run(transport="stdio", show_banner=False)
    else:
        server.run(transport="http", host=options.host, port=options.port, path="/mcp", show_banner=False)
    return 0


def _plain_log_lines() -> None:
    """One plain line per log record: Rich wraps a log that is not a terminal at 80 columns, mid-message."""
    import fastmcp
    from fastmcp.utilities.logging import configure_logging

    fastmcp.settings.enable_rich_logging = False
    configure_logging(level=fastmcp.settings.log_level)
