"""`guide check DOCROOT`: print every authoring error of a docroot."""

import argparse
import json
import sys
from pathlib import Path

from guide.cli.checkwatch import watch
from guide.cli.configured import settings_of
from guide.docroot.ahead import workers_here
from guide.docroot.lint import Report, checked
from guide.server.settings import open_docroot
from guide.text import for_terminal


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide check`."""
    parser = commands.add_parser("check", help="report every authoring error of a docroot")
    parser.add_argument("docroot", type=Path, nargs="?", default=None, help="the docroot (default: GUIDE_DOCROOT, else the bundled example)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--strict", action="store_true", help="fail on notes too, not only on errors")
    parser.add_argument("--watch", action="store_true", help="check again after every change until Ctrl-C")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Lint the docroot; exit 1 if it has errors (or, with `--strict`, notes)."""
    if options.docroot is not None and not options.docroot.is_dir():
        print(f"guide check: {options.docroot} is not a folder", file=sys.stderr)
        return 2
    settings = settings_of("check", docroot=options.docroot)
    if settings is None:
        return 2
    if options.watch:
        return watch(argparse.Namespace(**{**vars(options), "docroot": settings.docroot}), run)
    docroot = open_docroot(settings)
    report = checked(docroot.build(), docroot.store, workers_here())
    docroot.keep_parses()
    if options.format == "json":
        print(json.dumps(report.as_json(), indent=2))
    else:
        print(for_terminal(_text(report)))
    return 1 if report.problems or (options.strict and report.notes) else 0


def _text(report: Report) -> str:
    """Errors, then notes, then one summary line."""
    lines = [str(problem) for problem in report.problems] + [f"note: {note}" for note in report.notes]
    counts = " ".join(f"{name}={count}" for name, count in report.summary.items())
    errors, notes = len(report.problems), len(report.notes)
    tally = f"{errors} error{'s' if errors != 1 else ''}" if errors else "ok"
    if notes:
        tally += f", {notes} note{'s' if notes != 1 else ''}"
    lines.append(f"{tally}{';' if errors else ':'} {counts}")
    return "\n".join(lines)
