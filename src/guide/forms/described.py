"""What a pending question asks, described once for every channel (C7.9, C7.12): each field and each form as the person meets them.

A field (`Need`) is described by its keyword, form, type, whether the read needs
it, its choices with their titles, its default, its bounds in words and its own
title and description; a form (`PersonQuestion`) by its message, the fields
still open, the defaults that stand unless the person chooses otherwise, the
condition that opens it and, for a URL step, its link. Every channel words a
question from this one description: the agent's questions and the failure data
(`guide.forms.questions`, `guide.forms.failure`), the refusal a form shows when
an answer is not accepted, the App page's hints, and the terminal form of
`guide try`. The schema a native form receives stays the author's (C7.9).
"""

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from guide import address
from guide.forms.declare import Form
from guide.forms.fields import ABSENT, Field
from guide.forms.keywords import describe_bounds
from guide.forms.values import accepted, when_status
from guide.text import one_line, show


@dataclass(frozen=True)
class Need:
    """A field as every channel describes it: keyword, form, type, choices and titles, default, constraints, own words."""

    keyword: str
    form: str
    type: str
    required: bool
    choices: tuple[Any, ...] | None = None
    default: Any = ABSENT
    constraints: str = ""
    """The field's constraint keywords in words (`matching INC-[0-9]+`); empty when it has none."""
    accepts: str = ""
    """What the field accepts, in a few words (`one of: a, b`, `a string matching X`)."""
    many: bool = False
    words: tuple[str, ...] = ()
    """Every value the type can hold when that list is short (`true`, `false`), for a field without choices."""
    titles: tuple[str, ...] = ()
    """The title of each choice, in the order of `choices` (a choice without one is its own title)."""
    label: str = ""
    """The field's own words: its `title` and `description`, as declared."""

    @property
    def placeholder(self) -> str:
        """How an example address marks this field's value: `<a|b>` for its choices, else `<type>`."""
        choices = self.choices if self.choices is not None else self.words
        return address.placeholder([show(choice) for choice in choices] if choices else None, self.type)

    def note(self, titled: bool = False) -> str:
        """The field's type, choices or constraints and default, in words: `string, required; one of: a, b; default a`.

        `titled` adds each choice's title where it says more than the value: `one of: bug (Fix a bug), feature`.
        """
        parts = [self.type + (", required" if self.required else "")]
        if self.choices is not None:
            parts.append(self.choice_words(titled))
        if self.constraints and (self.choices is None or titled):
            parts.append(self.constraints)
        if self.default is not ABSENT:
            parts.append(f"default {show(self.default)}")
        return "; ".join(parts)

    def choice_words(self, titled: bool = True) -> str:
        """The choices in words: `one of: eu (Europe), us (United States)`; `titled` False names the values only."""
        titles = self.titles if titled and self.titles else tuple(map(show, self.choices or ()))
        shown = [show(value) if title == show(value) else f"{show(value)} ({title})" for value, title in zip(self.choices or (), titles)]
        return f"{'any of' if self.many else 'one of'}: {', '.join(shown)}"

    def described(self) -> str:
        """The field as a message names it: `mode (string, required; one of: a, b; default a)`."""
        return f"{self.keyword} ({self.note()})"

    def titled(self) -> str:
        """The field as a question to the person lists it: `` `kind` (string, required; one of: bug (Fix a bug)): Kind``."""
        return f"`{self.keyword}` ({self.note(titled=True)})" + (f": {self.label}" if self.label else "")

    def accepted(self, titled: bool = False) -> str:
        """What the field accepts, as the message about a refused value ends: `it accepts ...; default ...`.

        `titled` (a refusal the person reads in a form) names each choice with the title the person saw.
        """
        accepts = self.choice_words() if titled and self.choices is not None and self.titles != tuple(map(show, self.choices)) else self.accepts
        default = f"; default {show(self.default)}" if self.default is not ABSENT else ""
        return f"it accepts {accepts}{default}"

    def hint(self) -> str:
        """What a form shows under the field, when it has bounds: `Accepts an integer at least 1.`; else empty."""
        return f"Accepts {self.accepts}." if self.constraints else ""

    def labelled(self) -> str:
        """The field as a list of defaults names it: `` `severity` = sev3 (string; one of: sev1, sev2, sev3): Severity``."""
        return f"`{self.keyword}` = {show(self.default)} ({replace(self, required=False, default=ABSENT).note(titled=True)})" + (
            f": {self.label}" if self.label else "")

    def data(self) -> dict[str, Any]:
        """The field as the structured data of a failure holds it (docs/errors.md)."""
        return {
            "keyword": self.keyword,
            "form": self.form,
            "type": self.type,
            "required": self.required,
            "choices": list(self.choices) if self.choices is not None else None,
            "default": None if self.default is ABSENT else self.default,
            "accepts": self.accepts,
        }


def need(form: Form, field: Field, choices: Sequence[Any] | None) -> Need:
    """A field of `form` as a failure names it, offering `choices` (a workflow-phase field's, without the active phase)."""
    return describe(field, form.id, field.name in form.required, choices)


def describe(field: Field, form: str, required: bool, choices: Sequence[Any] | None) -> Need:
    """A field as every channel describes it, offering `choices` (a form shown by a client, a field of a failure)."""
    offered = tuple(choices) if choices is not None else None
    default = field.default
    if field.source and offered is not None and default not in offered:
        default = ABSENT  # a default equal to the active phase is not on offer (C7.9)
    titled = dict(field.options())
    return Need(
        keyword=field.name,
        form=form,
        type=field.type.name,
        required=required,
        choices=offered,
        default=default,
        constraints=describe_bounds(field.bounds),
        accepts=accepted(field, offered),
        many=field.type.many,
        words=field.type.words,
        titles=tuple(one_line(str(titled.get(str(choice), show(choice)))) for choice in offered) if offered is not None else (),
        label=one_line(". ".join(str(field.schema[key]).rstrip(".") for key in ("title", "description") if field.schema.get(key))),
    )


@dataclass(frozen=True)
class PersonQuestion:
    """A form the agent asks the person about itself (C7.12 c): its message, the fields still open, and when it applies.

    `when` holds the part of the form's condition that the answers decide (each
    field with the values that open the form); empty when the form applies now.
    """

    form: str
    message: str
    fields: tuple[Need, ...]
    """The fields the person is asked: still open, without a default."""
    when: Mapping[str, tuple[Any, ...]]
    url: str | None = None
    """A URL step's link as it renders with what is known now (empty until it can), None for a form."""
    defaults: tuple[Need, ...] = ()
    """The open fields with a default: the default is used unless the person chooses otherwise (never a question of its own)."""

    def condition(self) -> str:
        """The condition in words: `kind is bug and depth is quick or thorough`; empty when it applies now."""
        return " and ".join(f"{name} is {' or '.join(map(show, values))}" for name, values in self.when.items())

    def data(self) -> dict[str, Any]:
        """The question as the structured data of a failure holds it (docs/errors.md)."""
        found = {
            "form": self.form,
            "message": self.message,
            "when": {name: list(values) for name, values in self.when.items()} or None,
            "fields": [_titled_data(need) for need in self.fields],
            "defaults": [_titled_data(need) for need in self.defaults],
        }
        return found if self.url is None else {**found, "url": self.url or None}


def _titled_data(need: Need) -> dict[str, Any]:
    return {**need.data(), "titles": list(need.titles) if need.choices is not None else None}


def person_questions(forms: Sequence[Form], known: Mapping[str, Any], completed: Collection[str],
                     need_of: Callable[[Form, Field], Need], link_of: Callable[[Form], str | None] = lambda form: None) -> tuple[PersonQuestion, ...]:
    """What the agent asks the person (C7.12 c), in order: every form a client with forms would be asked now, and every
    form a `when` the answers decide could open, with that condition. `known` is what the read gave, before any default.

    As for a native form (C7.4), a form is asked when a required field is unknown or it supplies a field that a
    `when` waits on. A field's default is shown apart, not applied, so the person may choose otherwise; a field
    already known is not asked. A URL step is asked with its link as `link_of` renders it now, unless it has
    `fallback: render`: a client without links renders without it, so the person is never promised its link.
    """
    open_forms = [form for form in forms if form.id not in completed and when_status(form.when, known) is not False
                  and not (form.url is not None and form.fallback)]
    waited = {name for form in open_forms for name in form.when if name not in known}
    asked = []
    for form in open_forms:
        if form.url is None and not any(name not in known for name in form.required) and not any(
                field.name in waited for field in form.fields if field.name not in known):
            continue
        described = [need_of(form, field) for field in form.fields if field.name not in known]
        condition = {name: values for name, values in form.when.items() if name not in known}
        link = (link_of(form) or "") if form.url is not None else None
        asked.append(PersonQuestion(form.id, form.message, tuple(need for need in described if need.default is ABSENT), condition, link,
                                    tuple(need for need in described if need.default is not ABSENT)))
    return tuple(asked)
