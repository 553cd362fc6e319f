"""`guide try URI`: read an address through a real MCP client, answering forms in the terminal."""

import argparse
from pathlib import Path

from guide.cli.configured import add_folder_options

PROTOCOLS = ("legacy", "2026-07-28")


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide try`."""
    parser = commands.add_parser("try", help="read an address as a client would, answering forms in the terminal")
    parser.add_argument("uri", help="a guide:// address, e.g. guide://_review")
    add_folder_options(parser)
    parser.add_argument("--protocol", choices=PROTOCOLS, default="2026-07-28", help="protocol era (default: 2026-07-28)")
    parser.add_argument("--set", dest="values", action="append", default=[], metavar="K=V", help="a keyword value (repeatable)")
    parser.add_argument("--answers", type=Path, default=None, metavar="FILE.json",
                        help='answer forms from a JSON object keyed by form id: {field: value, ...}, "decline" or "cancel"')
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Read the address through a Guide subprocess; see `guide.cli.tryclient`."""
    # Imported here: loading the MCP client stack takes a second that other subcommands do not need.
    from guide.cli.tryclient import run_try

    return run_try(options)
