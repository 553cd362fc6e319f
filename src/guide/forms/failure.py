"""What a failed interaction tells its caller (C7.6, C7.11): why, the fields concerned, and the address to retry.

A `Fail` carries its one-line message and the same facts as plain data
(`Fail.data`, the shape documented in docs/errors.md), so that a client can
retry without parsing text. Each field concerned is a `Need`: its keyword,
form, type, choices and default, written once here for the message and the data alike.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from guide import address
from guide.errors import GuideError, InputError, MissingInputError, StateError
from guide.forms.declare import Form
from guide.forms.fields import ABSENT, Field
from guide.forms.keywords import KEYWORDS
from guide.forms.values import accepted
from guide.text import one_line, show

Reason = Literal["missing", "declined", "cancelled", "invalid", "unknown-keyword", "state", "unanswered", "link"]

EXAMPLE_LENGTH = 240
"""The longest retry address a message quotes whole; past it, the message's example leaves out the keywords given."""


@dataclass(frozen=True)
class Need:
    """A field a failure concerns, as a caller would supply it: keyword, form, type, choices, default, constraints."""

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
            titles = self.titles if titled and self.titles else tuple(map(show, self.choices))
            shown = [show(value) if title == show(value) else f"{show(value)} ({title})" for value, title in zip(self.choices, titles)]
            parts.append(f"{'any of' if self.many else 'one of'}: {', '.join(shown)}")
        if self.constraints and (self.choices is None or titled):
            parts.append(self.constraints)
        if self.default is not ABSENT:
            parts.append(f"default {show(self.default)}")
        return "; ".join(parts)

    def described(self) -> str:
        """The field as a message names it: `mode (string, required; one of: a, b; default a)`."""
        return f"{self.keyword} ({self.note()})"

    def titled(self) -> str:
        """The field as a question to the person lists it: `` `kind` (string, required; one of: bug (Fix a bug)): Kind``."""
        return f"`{self.keyword}` ({self.note(titled=True)})" + (f": {self.label}" if self.label else "")

    def accepted(self) -> str:
        """What the field accepts, as the message about a refused value ends: `it accepts ...; default ...`."""
        default = f"; default {show(self.default)}" if self.default is not ABSENT else ""
        return f"it accepts {self.accepts}{default}"

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
    offered = tuple(choices) if choices is not None else None
    default = field.default
    if field.source and offered is not None and default not in offered:
        default = ABSENT  # a default equal to the active phase is not on offer (C7.9)
    titled = dict(field.options())
    return Need(
        keyword=field.name,
        form=form.id,
        type=field.type.name,
        required=field.name in form.required,
        choices=offered,
        default=default,
        constraints=" ".join(KEYWORDS[key].describe(bound) for key, bound in field.bounds.items()),
        accepts=accepted(field, offered),
        many=field.type.many,
        words=field.type.words,
        titles=tuple(one_line(str(titled.get(str(choice), show(choice)))) for choice in offered) if offered is not None else (),
        label=one_line(". ".join(str(field.schema[key]).rstrip(".") for key in ("title", "description") if field.schema.get(key))),
    )


def described(needs: Sequence[Need]) -> str:
    """Fields as a message lists them, comma-separated."""
    return ", ".join(need.described() for need in needs)


@dataclass(frozen=True)
class Route:
    """How the caller reads an entrypoint again: by its address (a resource read, the tool), or by a prompt.

    `prompt` is the prompt's name (None: by address); `line` names the command
    when the prompt is `guide`, whose one `command` argument holds a route line.
    """

    prompt: str | None = None
    line: str | None = None


ADDRESS = Route()


@dataclass(frozen=True)
class PersonQuestion:
    """A form the agent asks the person about itself (C7.12 c): its message, the fields still open, and when it applies.

    `when` holds the part of the form's condition that the answers decide (each
    field with the values that open the form); empty when the form applies now.
    """

    form: str
    message: str
    fields: tuple[Need, ...]
    when: Mapping[str, tuple[Any, ...]]
    url: str | None = None
    """A URL step's link as it renders with what is known now (empty until it can), None for a form."""

    def condition(self) -> str:
        """The condition in words: `kind is bug and depth is quick or thorough`; empty when it applies now."""
        return " and ".join(f"{name} is {' or '.join(map(show, values))}" for name, values in self.when.items())

    def data(self) -> dict[str, Any]:
        """The question as the structured data of a failure holds it (docs/errors.md)."""
        found = {
            "form": self.form,
            "message": self.message,
            "when": {name: list(values) for name, values in self.when.items()} or None,
            "fields": [{**need.data(), "titles": list(need.titles) if need.choices is not None else None} for need in self.fields],
        }
        return found if self.url is None else {**found, "url": self.url or None}


@dataclass(frozen=True)
class Fail:
    """The interaction ends without rendering: why (`kind`), in one line, and the same as data.

    `missing` lists the keywords the caller must supply (C7.6); `fields` are the
    fields concerned; `address` is the entrypoint's and `retry` the address to
    read again once the values are known.
    """

    message: str
    kind: Reason
    missing: tuple[str, ...] = ()
    fields: tuple[Need, ...] = ()
    address: str = ""
    retry: str = ""
    questions: tuple[PersonQuestion, ...] = ()
    """For `missing`: the forms the agent asks the person about, in order, each with its condition (C7.12 c)."""
    instructions: str = ""
    """For `missing`: the questions and the way back, in words for the agent; the lines after `message`."""
    prompt: Mapping[str, Any] | None = None
    """For `missing` read by a prompt: the prompt's name and the arguments to get it again with."""
    links: tuple[tuple[str, str, str], ...] = ()
    """For `link`: each URL step this client cannot open, as (form, message, link)."""

    @property
    def error(self) -> GuideError:
        """The error the request ends with, carrying `data`: its text is `message`, then the instructions."""
        text = f"{self.message}\n\n{self.instructions}" if self.instructions else self.message
        return _ERRORS[self.kind](text, data=self.data())

    def data(self) -> dict[str, Any]:
        """The failure as structured data, in the one documented shape (docs/errors.md)."""
        found = {"reason": self.kind, "address": self.address, "fields": [need.data() for need in self.fields], "retry": self.retry}
        if self.kind == "missing":
            found["questions"] = [question.data() for question in self.questions]
        if self.kind == "link":
            found["links"] = [{"form": form, "message": message, "url": url} for form, message, url in self.links]
        if self.prompt is not None:
            found["prompt"] = {"name": self.prompt["name"], "arguments": dict(self.prompt["arguments"])}
        return found


_ERRORS: Mapping[str, type[GuideError]] = {
    "invalid": InputError,
    "unknown-keyword": InputError,
    "declined": InputError,
    "cancelled": InputError,
    "unanswered": InputError,
    "missing": MissingInputError,
    "link": MissingInputError,
    "state": StateError,
}


def failure(
    kind: Reason,
    message: str,
    *,
    entrypoint: str,
    args: Sequence[str] = (),
    keywords: Mapping[str, tuple[str, ...]] | None = None,
    needs: Sequence[Need] = (),
    missing: tuple[str, ...] = (),
    example: bool = False,
    links: tuple[tuple[str, str, str], ...] = (),
) -> Fail:
    """A failure of a read of `entrypoint`; its retry address keeps `args` and `keywords` and leaves a blank per need
    that `keywords` do not already give.

    With `example`, the message ends with that address ("for example ..."), whole
    when short, else with only its blanks: a value given is never echoed at length.
    """
    kept = dict(keywords or {})
    blanks = {need.keyword: need.placeholder for need in needs if need.keyword not in kept}
    retry = address.example(entrypoint, args, kept, blanks)
    if example:
        shown = retry if len(retry) <= EXAMPLE_LENGTH else address.example(entrypoint, (), {}, blanks)
        message = f"{message}; for example {shown}"
    return Fail(message, kind, missing, tuple(needs), entrypoint, retry, links=links)


def without_value(
    args: tuple[str, ...], arg_fields: tuple[str, ...], keywords: Mapping[str, tuple[str, ...]], name: str
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The args and keywords of a read without the value `name` was given, by keyword or positional arg."""
    kept = {key: values for key, values in keywords.items() if key != name}
    supplied = arg_fields[: len(args)]
    if name not in supplied:
        return args, kept
    # The args after it move into keywords; free args past the arg fields cannot keep their place and are left out.
    index = supplied.index(name)
    for later, arg in zip(supplied[index + 1 :], args[index + 1 :]):
        kept.setdefault(later, (arg,))
    return args[:index], kept
