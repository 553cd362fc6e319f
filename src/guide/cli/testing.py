"""`guide test DOCROOT [PATTERN]`: run the docroot's scenarios through a real MCP client in every channel (docs/testing.md)."""

import argparse
from pathlib import Path

from guide.server.settings import SETTING

FORMATS = ("text", "json", "junit")
SERVERS = ("in-process", "stdio")


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide test`."""
    parser = commands.add_parser("test", help="run the scenarios of a docroot's _tests folder through every channel")
    parser.add_argument("docroot", type=Path, nargs="?", default=None, help="the docroot (default: GUIDE_DOCROOT, else the bundled example)")
    parser.add_argument("pattern", nargs="?", default=None,
                        help="run only the scenarios whose file or name holds this text (or matches it, with * ? [])")
    parser.add_argument("--update", action="store_true", help="rewrite each snapshot from the text every channel rendered")
    parser.add_argument("--format", choices=FORMATS, default="text", help="text, json, or junit (JUnit XML for CI systems)")
    parser.add_argument(SETTING["project"].flag, dest="project", type=Path, default=None, metavar="DIR",
                        help="the project of scenarios that name none (default: an empty folder made for the run)")
    parser.add_argument("--server", choices=SERVERS, default="in-process",
                        help="in-process: one server in this process (default); stdio: `guide serve` processes, as a client starts them")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Run the scenarios; exit 0 when all pass, 1 on a failure, 2 when one cannot run."""
    # Imported here: loading the MCP client stack takes a second that other subcommands do not need.
    from guide.cli.scenarios.main import run_tests

    return run_tests(options)
