"""`guide serve`: serve a docroot over stdio or streamable HTTP.

Its options are the settings that have a flag (`guide.server.settings`), each
also read from its environment variable; `--help` lists every variable.
"""

import argparse
import sys
from pathlib import Path

from guide import collector
from guide.errors import GuideError
from guide.server.settings import SETTINGS, environment_help, read_settings


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide serve`."""
    parser = commands.add_parser(
        "serve", help="serve a docroot over MCP (stdio by default)", epilog=environment_help(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for setting in SETTINGS:
        if setting.flag is not None:  # read as text: the settings say what a value must be, the same for a flag and a variable
            parser.add_argument(setting.flag, dest=setting.name, default=None, metavar=setting.metavar, help=setting.described)
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    # Start-up makes what lives as long as the process (modules, classes, the server), and no cycle worth a
    # collection: it is made with the garbage collector paused (`guide.collector`).
    with collector.paused():
        # Imported here: loading the MCP stack takes a second that check and render do not need.
        from guide.server import connections, http, logs
        from guide.server.app import create_server

        try:
            settings = read_settings({setting.name: getattr(options, setting.name, None) for setting in SETTINGS})
            logs.configure(settings.log_level)
            server = create_server(settings=settings)
        except GuideError as error:
            print(f"guide serve: {error}", file=sys.stderr)
            return 2
    if settings.transport == "stdio":
        server.run(transport="stdio", show_banner=False)
    else:
        connections.quiet_accept_failures()
        for line in http.startup_warnings(settings, authenticated=server.auth is not None):
            print(f"guide serve: {line}", file=sys.stderr)
        server.run(transport="http", host=settings.host, port=settings.port, path="/mcp", show_banner=False, **http.run_options(settings))
    return 0
