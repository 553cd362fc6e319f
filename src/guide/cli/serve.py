"""`guide serve`: serve a docroot over stdio or streamable HTTP."""

import argparse
import os
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
    from guide.server import http
    from guide.server.app import create_server

    if not options.docroot.is_dir():
        print(f"guide serve: {options.docroot} is not a folder", file=sys.stderr)
        return 2
    try:
        server = create_server(options.docroot, options.project)
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
