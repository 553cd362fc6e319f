"""What a failed interaction tells its caller (C7.6, C7.11): why, the fields concerned, and the address to retry.

A `Fail` carries its one-line message and the same facts as plain data
(`Fail.data`, the shape documented in docs/errors.md), so that a client can
retry without parsing text. Each field concerned is a `Need`, described once
for the message and the data alike (`guide.forms.described`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from guide import address
from guide.errors import GuideError, InputError, MissingInputError, StateError
from guide.forms.described import Need, PersonQuestion

Reason = Literal["missing", "declined", "cancelled", "invalid", "unknown-keyword", "state", "unanswered", "link"]

EXAMPLE_LENGTH = 240
"""The longest retry address a message quotes whole; past it, the message's example leaves out the keywords given."""


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
