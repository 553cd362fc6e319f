"""The `guide` command line: serve, check, render and try."""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from guide import __version__
from guide.docroot.index import Docroot
from guide.docroot.lint import lint

EXAMPLE_DOCROOT = Path(__file__).parent / "examples" / "docroot"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `guide` command line and return its exit status."""
    parser = _parser()
    options = parser.parse_args(argv)
    if not hasattr(options, "run"):
        parser.print_help()
        return 2
    return options.run(options) or 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="guide", description="Serve Markdown/Mustache commands and skills over MCP.")
    parser.add_argument("--version", action="version", version=f"guide {__version__}")
    commands = parser.add_subparsers(metavar="COMMAND")

    check = commands.add_parser("check", help="report every authoring error of a docroot")
    check.add_argument("docroot", type=Path, nargs="?", default=EXAMPLE_DOCROOT, help="the docroot (default: the bundled example)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    check.set_defaults(run=_check)
    return parser


def _check(options: argparse.Namespace) -> int:
    if not options.docroot.is_dir():
        print(f"guide check: {options.docroot} is not a folder", file=sys.stderr)
        return 2
    report = lint(Docroot(options.docroot).snapshot())
    if options.format == "json":
        print(json.dumps(report.as_json(), indent=2))
    else:
        for problem in report.problems:
            print(problem)
        counts = " ".join(f"{name}={count}" for name, count in report.summary.items())
        errors = len(report.problems)
        print(f"{errors} error{'s' if errors != 1 else ''}; {counts}" if errors else f"ok: {counts}")
    return 1 if report.problems else 0
