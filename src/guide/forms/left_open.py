"""What a read renders with while the person's answers are still to come (`guide export-skills`).

A client that shows no form gets, for a read only the person could complete,
the questions to put to the person (C7.12 c, `guide.forms.questions`). An
exported skill asks those same questions itself and then follows its body, so
that body is rendered now with what is known now, and every value the answers
decide is left *open*: each field of a form the agent would ask (its default
too: the person may choose otherwise), and each form whose condition the
answers decide (its fields, whether its defaults were kept, whether its link was
opened). What is known is what the read gave (its keywords and args); every
other form that applies fills its unknown fields from their defaults, as a
render does, and a URL step that renders without its link (`fallback: render`)
counts as defaulted, as for a client that opens no link.
"""

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from guide.forms.described import PersonQuestion
from guide.forms.outcomes import Render, Request
from guide.forms.step import read_keywords
from guide.forms.values import normalise_answer, when_status


@dataclass(frozen=True)
class Open:
    """A render of the values known now, and the names whose values the person's answers decide."""

    render: Render
    fields: frozenset[str]
    """The fields (`kwargs.NAME`) the answers give."""
    forms: frozenset[str]
    """The forms whose state (`elicitation.defaulted_forms.ID`, `elicitation.opened.ID`) the answers decide."""


def left_open(request: Request, questions: Collection[PersonQuestion]) -> Open:
    """What `request` renders with before the person answers `questions` (the agent channel's, for this request)."""
    known = read_keywords(request)
    if not isinstance(known, dict):
        known = {}  # a read with an invalid keyword fails before it asks anything: no question is then open
    forms = request.forms.forms
    undecided = {form.id for form in forms if when_status(form.when, known) is None}
    open_forms = frozenset({question.form for question in questions} | undecided)
    open_fields = frozenset(field.name for form in forms if form.id in open_forms for field in form.fields if field.name not in known)
    settled = [form for form in forms if form.id not in open_forms and when_status(form.when, known) is True]
    defaults: dict[str, Any] = {field.name: normalise_answer(field, field.default) for form in settled for field in form.fields
                                if field.has_default and field.name not in known and field.name not in open_fields}
    defaulted = frozenset(form.id for form in settled if form.url is not None and form.fallback)
    return Open(Render({**defaults, **known}, request.args, defaulted), open_fields, open_forms)
