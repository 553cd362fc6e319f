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

    serve = commands.add_parser("serve", help="serve a docroot over MCP (stdio by default)")
    serve.add_argument("--docroot", type=Path, default=EXAMPLE_DOCROOT, help="the docroot (default: the bundled example)")
    serve.add_argument("--project", type=Path, default=None, help="the project folder for workflow state (default: the working folder)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio, or streamable HTTP at /mcp")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    serve.set_defaults(run=_serve)
    return parser


def _serve(options: argparse.Namespace) -> int:
    from guide.errors import GuideError
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
        server.run(transport="http", host=options.host, port=options.port, path="/mcp", show_banner=False)
    return 0


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
