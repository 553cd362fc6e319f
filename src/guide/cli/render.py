"""`guide render URI`: render an entrypoint without a client, explaining each form."""

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guide.cli.configured import add_folder_options, settings_of
from guide.cli.explain import REFUSED, UNMENTIONED, FormReport, explain
from guide.cli.inputs import NO_FIELDS, FileAnswers, check_form_ids, read_answers, with_values
from guide.docroot import sources
from guide.docroot.projects import Projects
from guide.errors import GuideError
from guide.forms.step import Answer, Ask, Fail, Outcome, Progress, Question, Request, step
from guide.forms.url_step import UrlQuestion
from guide.protocol import PROJECT
from guide.routes.finish import document_text, finish
from guide.routes.lookup import AddressRead, Call, Document, resolve
from guide.server.settings import Settings, open_docroot
from guide.text import for_terminal

ANY_PROJECT = Projects(Path("/"), refused="is not a folder", accepted=f"{PROJECT}=<absolute path of a folder>, or --project DIR")
"""`guide render` is run by the operator: the `project` keyword may name any folder (as a server's `--projects-under /` would allow)."""


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


@dataclass(frozen=True)
class Rendering:
    """What `guide render` reports: the text (None if it cannot render), each form's report and the error."""

    text: str | None
    forms: list[FormReport] = field(default_factory=list)
    error: str | None = None

    def as_json(self) -> dict:
        """The object `--format json` prints."""
        return {"text": self.text, "error": self.error, "forms": [report.as_json() for report in self.forms]}


def run(options: argparse.Namespace) -> int:
    """Print the form reports and the rendered text (or the error); exit 1 if it cannot render, 2 if a setting is wrong."""
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


def render(uri: str, settings: Settings, values: list[str], answers: Path | None = None) -> Rendering:
    """Render `uri` as a client without forms would get it, or, given an answers file, as one answering from it."""
    folder = open_docroot(settings)
    read = AddressRead(with_values(uri, values))
    given = read_answers(answers) if answers else None
    built = folder.build()
    found = resolve(built, read)
    if isinstance(found, Document):
        return Rendering(document_text(folder, found))
    if isinstance(found, str):
        return Rendering(found)
    named = found.keywords.get(PROJECT)
    project = ANY_PROJECT.named(named) if named is not None else None
    phase = folder.active_phase(built, project)
    live = sources.derive(found.entrypoint.forms, sources.project_of(folder, project), found.supplied()) if found.entrypoint.forms.live else {}
    if given is None:
        request = found.request(can_elicit=False, active_phase=phase, live=live)
        outcome = step(request)
        first = step(found.request(can_elicit=True, active_phase=phase, live=live))
        reports = explain(request, outcome, asked={q.form for q in first.questions} if isinstance(first, Ask) else set())
    else:
        check_form_ids(given, [form.id for form in found.entrypoint.forms.forms], found.entrypoint.uri)
        request = found.request(can_elicit=True, active_phase=phase, live=live, url_mode=True)  # the file answers URL steps too
        outcome, replies = _answered(request, FileAnswers(given))
        reports = explain(request, outcome, replies=replies)
    return _rendering(found, outcome, reports, phase, settings.max_output)


def _answered(request: Request, answers: FileAnswers) -> tuple[Outcome, dict[str, str]]:
    """Run the interaction an interactive client would, answering each form from the file."""
    progress, replies, given = Progress(), {}, None
    while True:
        outcome = step(request, progress, given)
        if not isinstance(outcome, Ask):
            return outcome, replies
        given = {}
        for question in outcome.questions:
            try:
                reply = answers(question.form, *_shown(question))
            except GuideError as error:
                replies[question.form] = REFUSED
                return Fail(str(error), "invalid"), replies
            action = reply if isinstance(reply, str) else "accept"
            replies[question.form] = UNMENTIONED if question.form not in answers.answers else action
            given[question.form] = Answer(action, reply if isinstance(reply, dict) else None)
            if action == "decline":
                break  # a decline ends the interaction: the forms after it are not asked
        progress = outcome.progress


def _shown(question: Question | UrlQuestion) -> tuple[str, dict[str, Any]]:
    """A form's message and schema as an answerer sees them; a URL step is its message with the link, and no field."""
    if isinstance(question, UrlQuestion):
        return f"{question.message}\n\nOpen this link: {question.url}", NO_FIELDS
    return question.message, dict(question.schema)


def _rendering(call: Call, outcome: Outcome, reports: list[FormReport], phase: str | None, max_output: int) -> Rendering:
    if isinstance(outcome, Fail):
        return Rendering(None, reports, outcome.message)
    return Rendering(finish(call, outcome, phase, max_output=max_output), reports)
