"""What `guide render` and `guide try` take besides the address: `--set K=V` keywords and an `--answers` file.

An answers file is a JSON object keyed by form id; each value is an object of
field values (accept), or "decline" or "cancel". A form the file does not
mention is cancelled. Both commands read it here and check it the same way, so
a mistake in it is one line naming what to fix.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from guide import address
from guide.errors import GuideError
from guide.forms.fields import declare_field
from guide.forms.values import Invalid, accepted, normalise_answer, problems
from guide.spelling import near_miss

ACTIONS = ("decline", "cancel")
Reply = dict[str, Any] | str
"""An answer to one form: field values (accept), "decline" or "cancel"."""
NO_FIELDS: dict[str, Any] = {"type": "object", "properties": {}}
"""The schema a URL step shows an answerer: nothing to fill in, only accept, decline or cancel."""


def with_values(uri: str, values: Sequence[str]) -> str:
    """The address `uri` with each `--set K=V` added as a keyword."""
    if not values:
        return uri
    target = address.parse(uri)
    if target.kind not in ("command", "skill"):
        raise GuideError(f"--set gives keywords to a command or skill; {uri} names a {target.kind}")
    merged = {name: list(given) for name, given in target.keywords.items()}
    for item in values:
        name, has_value, value = item.partition("=")
        if not has_value or not name:
            raise GuideError(f"--set takes K=V, got {item!r}")
        merged.setdefault(name, []).append(value)
    return address.format(replace(target, keywords={name: tuple(given) for name, given in merged.items()}))


def read_answers(path: Path) -> dict[str, Reply]:
    """The answers file as a dict, or a one-line `GuideError` saying what is wrong with it."""
    try:
        answers = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise GuideError(f"cannot read the answers file {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise GuideError(f"the answers file {path} is not valid JSON: {error}") from None
    if not isinstance(answers, dict):
        raise GuideError("the answers file must hold a JSON object keyed by form id")
    for form, answer in answers.items():
        if not isinstance(answer, dict) and answer not in ACTIONS:
            raise GuideError(f'the answer for {form} must be an object of field values, "decline" or "cancel"')
    return answers


def check_form_ids(answers: Mapping[str, Reply], forms: Sequence[str], uri: str) -> None:
    """Refuse an answers file naming a form the entrypoint does not have, naming the forms it has."""
    for form in answers:
        if form not in forms:
            guess = near_miss(form, forms)
            hint = f"; did you mean {guess}?" if guess else ""
            listed = ", ".join(forms) if forms else "none"
            raise GuideError(f"the answers file names form {form}, which {uri} does not have{hint} (its forms: {listed})")


class FileAnswers:
    """Answers each form from an answers file, checking the values as the form will."""

    def __init__(self, answers: Mapping[str, Reply]):
        self.answers = answers
        self.asked: set[str] = set()

    def __call__(self, form: str, message: str, schema: Mapping[str, Any]) -> Reply:
        """The file's reply to one form; a value the form refuses, or a form asked again, is a `GuideError`."""
        if form in self.asked:
            # Only a refused answer is asked again, and the file would give the same one.
            reason = message.rsplit("The previous answer was not accepted: ", 1)[-1].rstrip(".")
            raise GuideError(f"the answers file's answer to form {form} was not accepted: {reason}")
        self.asked.add(form)
        given = self.answers.get(form, "cancel")
        if isinstance(given, dict):
            problem = _problem(given, schema)
            if problem:
                raise GuideError(f"the answers file's answer to form {form} is not accepted: {problem}")
        return given


def _problem(given: Mapping[str, Any], schema: Mapping[str, Any]) -> str | None:
    """The first thing the form would refuse in `given`, as one clause, or None."""
    properties = schema.get("properties", {})
    for name, value in given.items():
        if name not in properties:
            guess = near_miss(name, properties)
            hint = f"; did you mean {guess}?" if guess else f"; its fields: {', '.join(properties)}"
            return f"the form has no field {name}{hint}"
        field, _ = declare_field(name, properties[name], allow_source=False, phases=())
        if field is None:
            continue
        try:
            normal = normalise_answer(field, value)
        except Invalid as error:
            return f"field {name}: {error}; it accepts {accepted(field)}"
        found = [] if normal is None else problems(field, normal)
        if found:
            return f"field {name}: {found[0]}; it accepts {accepted(field)}"
    missing = [name for name in schema.get("required", ()) if given.get(name) in (None, "")]
    return f"field {missing[0]} is required" if missing else None
