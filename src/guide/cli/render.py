"""`guide render URI`: render an entrypoint with given values and no client, explaining each form."""

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from guide import address
from guide.docroot.folder import Docroot
from guide.errors import GuideError
from guide.forms.declare import Form
from guide.forms.resolve import Ask, Fail, Outcome, Render, Request, read_keywords, step, when_status
from guide.routes.finish import finish
from guide.routes.resolve import resolve


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide render`."""
    parser = commands.add_parser("render", help="render an entrypoint without a client and explain its forms")
    parser.add_argument("uri", help="a guide:// address, e.g. guide://_review?mode=branch")
    parser.add_argument("--docroot", type=Path, default=example, help="the docroot (default: the bundled example)")
    parser.add_argument("--project", type=Path, default=None, help="the project folder holding the workflow state file")
    parser.add_argument("--set", dest="values", action="append", default=[], metavar="K=V", help="a keyword value (repeatable)")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Print the form report to stderr and the rendered text to stdout; exit 1 if it cannot render."""
    try:
        text = render(options.uri, options.docroot, options.project, options.values)
    except GuideError as error:
        print(f"guide render: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def render(uri: str, docroot: Path, project: Path | None, values: list[str]) -> str:
    """Render `uri` as a client without form elicitation would get it, after reporting each form to stderr."""
    folder = Docroot(docroot, project)
    target = address.parse(uri)
    found = resolve(folder, replace(target, keywords=_with_values(target.keywords, values)))
    if isinstance(found, str):
        return found
    interactive = step(found.request(can_elicit=True))
    request = found.request(can_elicit=False)
    outcome = step(request)
    for line in explain(request, interactive, outcome):
        print(line, file=sys.stderr)
    return finish(folder, found, outcome)


def explain(request: Request, interactive: Outcome, outcome: Outcome) -> list[str]:
    """One line per form: would it be asked, was it defaulted, supplied, or not applicable, and why."""
    asked = {question.form for question in interactive.questions} if isinstance(interactive, Ask) else set()
    defaulted = outcome.defaulted if isinstance(outcome, Render) else frozenset()
    known = read_keywords(request)
    known = {} if isinstance(known, Fail) else known
    lines = []
    for form in request.forms.forms:
        missing = [name for name in form.required if name not in known]
        applies = when_status(form, known)
        if form.id in defaulted:
            status = "defaulted: " + ("its schema defaults resolve it" if _defaults_resolve(form) else "fallback: render")
        elif form.id in asked:
            status = "would be asked" + (f": missing {', '.join(missing)}" if missing else ": a later form waits for its answer")
        elif applies is False:
            status = f"not applicable: {_conditions(form)}"
        elif applies is None:
            status = f"waits for earlier answers: {_conditions(form)}"
        else:
            status = "supplied by keywords" if not missing else f"still missing {', '.join(missing)}"
        lines.append(f"form {form.id}: {status}")
    return lines


def _with_values(keywords, values: list[str]) -> dict[str, tuple[str, ...]]:
    merged = {name: list(given) for name, given in keywords.items()}
    for item in values:
        name, has_value, value = item.partition("=")
        if not has_value or not name:
            raise GuideError(f"--set takes K=V, got {item!r}")
        merged.setdefault(name, []).append(value)
    return {name: tuple(given) for name, given in merged.items()}


def _defaults_resolve(form: Form) -> bool:
    return all(field.has_default for field in form.fields if field.name in form.required)


def _conditions(form: Form) -> str:
    return "when " + " and ".join(f"{name} in {list(values)}" for name, values in form.when.items())
