"""`guide render URI`: render an entrypoint without a client, explaining each form."""

import argparse
import json
import sys
from pathlib import Path

from guide.cli.configured import add_folder_options, settings_of
from guide.errors import GuideError
from guide.text import for_terminal


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide render`."""
    parser = commands.add_parser("render", help="render an entrypoint without a client and explain its forms")
    parser.add_argument("uri", help="a guide:// address, e.g. guide://_review?mode=branch")
    add_folder_options(parser)
    parser.add_argument("--set", dest="values", action="append", default=[], metavar="K=V", help="a keyword value (repeatable)")
    parser.add_argument("--answers", type=Path, default=None, metavar="FILE.json",
                        help='answer forms as an interactive client would, from a JSON object keyed by form id')
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: forms on stderr, rendered text on stdout; json: one object holding both")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Print the form reports and the rendered text (or the error); exit 1 if it cannot render, 2 if a setting is wrong."""
    # Imported here: the read path loads FastMCP, a second that `guide check` and the other subcommands do not need.
    from guide.cli.rendering import Rendering, render

    settings = settings_of("render", docroot=options.docroot, project=options.project)
    if settings is None:
        return 2
    try:
        result = render(options.uri, settings, options.values, options.answers)
    except GuideError as error:
        result = Rendering(None, error=str(error))
    if options.format == "json":
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
    else:
        for report in result.forms:
            print(for_terminal(report.line()), file=sys.stderr)
        if result.error is not None:
            print(f"guide render: {for_terminal(result.error)}", file=sys.stderr)
        else:
            text = result.text or ""
            sys.stdout.write(for_terminal(text) if sys.stdout.isatty() else text)  # piped, exactly as rendered
    return 1 if result.error is not None else 0
