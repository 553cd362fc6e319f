"""`guide check DOCROOT`: print every authoring error of a docroot."""

import argparse
import json
import sys
from pathlib import Path

from guide.cli.checkwatch import watch
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide check`."""
    parser = commands.add_parser("check", help="report every authoring error of a docroot")
    parser.add_argument("docroot", type=Path, nargs="?", default=example, help="the docroot (default: the bundled example)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--watch", action="store_true", help="check again after every change until Ctrl-C")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Lint the docroot; exit 1 if it has errors."""
    if options.watch:
        return watch(options, run)
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
