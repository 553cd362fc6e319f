"""The `guide` command line: init, serve, check, render, try and export-skills."""

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from guide import __version__
from guide.cli import check, init, render, serve, tryout
from guide.cli.export import command as export_skills
from guide.examples import DOCROOT as EXAMPLE_DOCROOT

YOUNG_COLLECTION = 10_000
"""Allocations between two collections of the youngest objects in a `guide` process (CPython's default: 700)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `guide` command line and return its exit status."""
    parser = build_parser()
    options = parser.parse_args(argv)
    if not hasattr(options, "run"):
        parser.print_help()
        return 2
    return options.run(options) or 0


def run() -> NoReturn:
    """The `guide` program: run the command line, then end the process with its status."""
    # Building a large docroot makes hundreds of thousands of long-lived objects in bursts. At CPython's
    # default the collector then runs full collections over all of them again and again: 15 during the
    # first listing of 3,000 entrypoints, a third of its time. Collecting young objects less often leaves
    # 3 (docs/benchmarks-history.md, "The garbage collector"); nothing is frozen or switched off.
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    status = main()
    # A server that has served a large docroot holds millions of small objects, and the
    # interpreter's teardown would free them one by one: most of a second at 10k files,
    # spent while the client waits for the process to end. Nothing is left to clean up.
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            pass
    os._exit(status)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="guide", description="Serve Markdown/Mustache commands and skills over MCP.")
    parser.add_argument("--version", action="version", version=f"guide {__version__}")
    commands = parser.add_subparsers(metavar="COMMAND")
    for module in (init, serve, check, render, tryout, export_skills):
        module.add_parser(commands, EXAMPLE_DOCROOT)
    return parser
