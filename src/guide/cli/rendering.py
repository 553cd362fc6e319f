"""What `guide render` does: one read of an address without a client, each form explained."""

import asyncio
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from fastmcp import Context

from guide.cli.explain import REFUSED, UNMENTIONED, FormReport, explain, read_each
from guide.cli.inputs import NO_FIELDS, FileAnswers, Reply, check_form_ids, read_answers, with_values
from guide.errors import GuideError
from guide.forms.step import Answer, Ask, Fail, Outcome, Question, Request, step
from guide.forms.url_step import UrlQuestion
from guide.project.context import Contexts
from guide.project.folders import Projects
from guide.protocol import PROJECT
from guide.routes.lookup import AddressRead, Call
from guide.server.channels.agent import Agent
from guide.server.channels.base import Declared
from guide.server.eras.base import Driven, Era, Pending, Stepping
from guide.server.service import Service, Turn
from guide.server.settings import Settings, open_docroot

ANY_PROJECT = Projects(Path("/"), refused="is not a folder", accepted=f"{PROJECT}=<absolute path of a folder>, or --project DIR")
"""`guide render` is run by the operator: the `project` keyword may name any folder (as a server's `--projects-under /` would allow)."""


@dataclass(frozen=True)
class Rendering:
    """What `guide render` reports: the text (None if it cannot render), each form's report and the error."""

    text: str | None
    forms: list[FormReport] = field(default_factory=list)
    error: str | None = None

    def as_json(self) -> dict:
        """The object `--format json` prints."""
        return {"text": self.text, "error": self.error, "forms": [report.as_json() for report in self.forms]}


def render(uri: str, settings: Settings, values: list[str], answers: Path | None = None) -> Rendering:
    """Render `uri` as a client without forms would get it, or, given an answers file, as one answering from it."""
    service = Service(open_docroot(settings), contexts=Contexts(settings.project, ANY_PROJECT), max_output=settings.max_output)
    given = read_answers(answers) if answers else None
    return asyncio.run(_render(service, AddressRead(with_values(uri, values)), given))


async def _render(service: Service, read: AddressRead, given: dict[str, Reply] | None) -> Rendering:
    """The one read of `read` through the agent's channel, or through one answering from the file; each form explained."""
    found = await service.find(read)
    if not isinstance(found, Call):
        return Rendering(found)
    seen: list[tuple[Request, Outcome]] = []
    if given is None:
        turn = Turn(Agent(), observe=lambda request, outcome: seen.append((request, outcome)))
    else:
        check_form_ids(given, [form.id for form in found.entrypoint.forms.forms], found.entrypoint.uri)
        channel = FromFile(FileAnswers(given))
        turn = Turn(channel, links=True, observe=lambda request, outcome: seen.append((request, outcome)))  # the file answers URL steps too
    try:
        text: str | Pending | GuideError = await service.call(read, found, turn)
    except GuideError as error:
        if not seen:
            raise
        text = error
    request, outcome = seen[-1]
    if given is None:
        first = step(replace(request, can_elicit=True))
        reports = explain(request, outcome, asked={q.form for q in first.questions} if isinstance(first, Ask) else set())
    else:
        reports = explain(request, outcome, replies=channel.replies)
    if isinstance(outcome, Fail) or not isinstance(text, str):
        return Rendering(None, reports, _failure(request, outcome) if isinstance(outcome, Fail) else str(text))
    return Rendering(text, reports)


def _failure(request: Request, outcome: Fail) -> str:
    """Why the render failed: every invalid keyword at once (a read stops at the first), else the failure's one line."""
    invalid = read_each(request)[1]
    if outcome.kind != "invalid" or len(invalid) < 2:
        return outcome.message
    return f"{len(invalid)} invalid keywords: " + "; ".join(dict.fromkeys(message.removeprefix("invalid keyword ") for message in invalid.values()))


class FromFile:
    """The channel of `guide render --answers`: each form asked is answered from the file, as an interactive client would."""

    name = "answers-file"
    asks = True

    def __init__(self, answers: FileAnswers):
        self.answers = answers
        self.replies: dict[str, str] = {}
        """The action taken on each form asked, for the report (`REFUSED`, `UNMENTIONED`, or the file's action)."""

    def carries(self, declared: Declared) -> bool:
        """Never chosen for a client: `guide render` names it."""
        return False

    def opens_links(self, declared: Declared) -> bool:
        """Yes: the file answers URL steps as opened or not."""
        return True

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """Answer each round of forms from the file until the interaction renders or fails."""
        outcome: Outcome = asked
        while isinstance(outcome, Ask):
            given: dict[str, Answer] = {}
            for question in outcome.questions:
                try:
                    reply = self.answers(question.form, *_shown(question))
                except GuideError as error:
                    self.replies[question.form] = REFUSED
                    return Fail(str(error), "invalid")
                action = reply if isinstance(reply, str) else "accept"
                self.replies[question.form] = UNMENTIONED if question.form not in self.answers.answers else action
                given[question.form] = Answer(action, reply if isinstance(reply, dict) else None)  # type: ignore[arg-type]
                if action == "decline":
                    break  # a decline ends the interaction: the forms after it are not asked
            outcome = await stepping(partial(step, request, outcome.progress, given))
        return outcome


def _shown(question: Question | UrlQuestion) -> tuple[str, dict[str, Any]]:
    """A form's message and schema as an answerer sees them; a URL step is its message with the link, and no field."""
    if isinstance(question, UrlQuestion):
        return f"{question.message}\n\nOpen this link: {question.url}", NO_FIELDS
    return question.message, dict(question.schema)
