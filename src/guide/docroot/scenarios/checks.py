"""Check scenarios against the docroot: the entrypoint each reads, the forms and fields its answers name, the values' types, its folders.

What a scenario names must exist as named (a near miss is named, C5); an
answer must have its field's JSON type (C6: `3.0` is an integer, `"3"` is not),
as a client would send it. A value the form refuses for another reason (a
pattern, a bound) is left alone: a scenario may test that refusal. The report
for `guide check` is `report`; `guide test` runs the scenarios `check` passes.
"""

import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guide import address
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.scenarios.folder import read_all
from guide.docroot.scenarios.model import Scenario
from guide.docroot.scenarios.parse import Mistakes
from guide.errors import GuideError, Problem
from guide.forms.declare import Form
from guide.forms.values import Invalid, normalise_answer
from guide.protocol import PROJECT
from guide.spelling import near_miss
from guide.text import clip


@dataclass(frozen=True)
class Checked:
    """A scenario checked against a build: the entrypoint it reads (None when it names none), its problems and its notes."""

    scenario: Scenario
    entrypoint: Entrypoint | None
    problems: tuple[Problem, ...] = ()
    notes: tuple[Problem, ...] = ()


def report(built: Built) -> tuple[list[Problem], list[Problem]]:
    """Every problem and note of the docroot's scenario files, for `guide check`."""
    problems: list[Problem] = []
    notes: list[Problem] = []
    for found in read_all(built.snapshot.root, built.files.limit):
        problems += found.problems
        for scenario in found.scenarios:
            checked = check(built, scenario)
            problems += checked.problems
            notes += checked.notes
    return problems, notes


def check(built: Built, scenario: Scenario) -> Checked:
    """What is wrong with a well-shaped scenario in this docroot (nothing: it can run), and its notes."""
    mistakes = Mistakes(scenario.path, scenario.name, scenario.lines)
    entrypoint = _entrypoint(mistakes, built, scenario)
    if entrypoint is not None:
        _answers(mistakes, scenario, entrypoint)
        _expected(mistakes, scenario, entrypoint)
    _project(mistakes, built.snapshot.root, scenario)
    notes = Mistakes(scenario.path, scenario.name, scenario.lines)
    snapshot = scenario.expect.snapshot
    if snapshot is not None and os.path.lexists(built.snapshot.root / snapshot) and not (built.snapshot.root / snapshot).is_file():
        mistakes.add(("expect", "snapshot"), f"the snapshot {snapshot} is not a file (a folder, or a link to nothing)")
    elif snapshot is not None and not (built.snapshot.root / snapshot).is_file():
        notes.add(("expect", "snapshot"), f"the snapshot {snapshot} does not exist yet; `guide test --update` writes it")
    return Checked(scenario, entrypoint if not mistakes.found else None, tuple(mistakes.found), tuple(notes.found))


def _entrypoint(mistakes: Mistakes, built: Built, scenario: Scenario) -> Entrypoint | None:
    """The command or skill the scenario reads; a mistake when it names none (with the one it resembles)."""
    key = "read" if scenario.read is not None else "prompt"
    if scenario.read is None and scenario.prompt is None:
        return None  # said when the file was read
    try:
        if scenario.prompt is not None:
            segments: tuple[str, ...] = address.parse_prompt(scenario.prompt).segments
            kind = "command"
        else:
            target = address.parse(scenario.read or "")
            kind, segments = target.kind, target.path
            if kind not in ("command", "skill"):
                mistakes.add((key,), f"{clip(scenario.read or '')} names a {kind}; a scenario reads a command or a skill")
                return None
            if PROJECT in target.keywords and scenario.project is not None:
                mistakes.add((key,), "the address names a project and so does `project`; give it with `project` only")
    except GuideError as error:
        mistakes.add((key,), str(error))
        return None
    if kind == "skill":
        skill = built.skill(segments[0])
        if skill is None:
            mistakes.add((key,), f"no skill {clip(segments[0])} in this docroot{_like(segments[0], built.names('skill'), address.skill_address)}")
        return skill
    found = built.find_command(segments)
    if found is None:
        name = "/".join(segments)
        mistakes.add((key,), f"no command {clip(name)} in this docroot{_like(name, built.names('command'), address.command_address)}")
        return None
    return found[0]


def _like(name: str, names: Sequence[str], addressed: Any) -> str:
    guess = near_miss(name, names)
    return f"; did you mean {addressed(guess)}?" if guess else ""


def _answers(mistakes: Mistakes, scenario: Scenario, entrypoint: Entrypoint) -> None:
    forms = {form.id: form for form in entrypoint.forms.forms}
    for form_id, reply in scenario.answers.items():
        form = forms.get(form_id)
        if form is None:
            mistakes.add(("answers", form_id), f"{entrypoint.uri} has no form {clip(form_id)}{_guess(form_id, forms)} (its forms: "
                         f"{', '.join(forms) or 'none'})")
        elif isinstance(reply, dict):
            _values(mistakes, entrypoint, form, reply)


def _values(mistakes: Mistakes, entrypoint: Entrypoint, form: Form, reply: dict[str, Any]) -> None:
    if form.url is not None and reply:
        mistakes.add(("answers", form.id), f"form {form.id} is a link (mode: url), with no field: answer {{}} to open it, or decline or cancel")
        return
    for name, value in reply.items():
        field = form.field(name)
        if field is None:
            elsewhere = entrypoint.forms.fields.get(name)
            hint = (f"; field {name} is in form {elsewhere[0].id}" if elsewhere else _guess(name, [f.name for f in form.fields]))
            mistakes.add(("answers", form.id, name), f"form {form.id} has no field {clip(name)}{hint}")
            continue
        try:
            normalise_answer(field, value)
        except Invalid as error:
            hint = "; YAML reads an unquoted date or time as one: quote it ('2026-12-01')" if isinstance(value, datetime.date) else ""
            mistakes.add(("answers", form.id, name), f"the answer to field {name} is not accepted: {error}{hint}")


def _expected(mistakes: Mistakes, scenario: Scenario, entrypoint: Entrypoint) -> None:
    order = [form.id for form in entrypoint.forms.forms]
    asks = scenario.expect.asks or ()
    for index, form_id in enumerate(asks):
        if form_id not in order:
            mistakes.add(("expect", "asks", index), f"{entrypoint.uri} has no form {clip(form_id)}{_guess(form_id, order)}")
    known = [form_id for form_id in asks if form_id in order]
    if known != sorted(known, key=order.index) or len(set(known)) < len(known):
        mistakes.add(("expect", "asks"), f"list each form asked once, in declaration order ({', '.join(order)}): the eras ask in different "
                     "orders (a legacy client one form at a time, a 2026-07-28 round every pending form at once)")
    fails = scenario.expect.fails
    fields = entrypoint.forms.fields
    for index, name in enumerate(fails.fields or () if fails is not None else ()):
        if name not in fields:
            mistakes.add(("expect", "fails", "fields", index), f"{entrypoint.uri} has no field {clip(name)}{_guess(name, list(fields))}")


def _project(mistakes: Mistakes, root: Path, scenario: Scenario) -> None:
    if scenario.project is None:
        return
    real = os.path.realpath(root / scenario.project)
    if not os.path.isdir(real) or not real.startswith(os.path.join(os.path.realpath(root), "")):
        mistakes.add(("project",), f"the project folder {scenario.project} is not a folder inside the docroot")


def _guess(name: str, known: Any) -> str:
    guess = near_miss(name, list(known))
    return f"; did you mean {guess}?" if guess else ""
