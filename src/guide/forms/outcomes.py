"""What one step of an interaction takes and gives (C7): the progress so far, the client's answers, the questions and the outcomes.

`guide.forms.step.step` returns an `Outcome`: `Render`, `Ask` or `Fail`
(`guide.forms.failure`). The records are plain and frozen; nothing here decides.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal

from guide.forms.failure import Fail
from guide.forms.url_step import UrlQuestion


@dataclass(frozen=True)
class Progress:
    """What an interaction has gathered so far; carried between rounds in the continuation state."""

    values: Mapping[str, Any] = dataclass_field(default_factory=dict)
    completed: frozenset[str] = frozenset()
    defaulted: frozenset[str] = frozenset()
    requested: tuple[str, ...] = ()
    attempts: Mapping[str, int] = dataclass_field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """A client's response to one form."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Question:
    """One form to send to the client: its id, message and the schema to deliver."""

    form: str
    message: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class Render:
    """Every applicable form is done: render with these values."""

    kwargs: Mapping[str, Any]
    args: tuple[str, ...]
    defaulted: frozenset[str]
    opened: frozenset[str] = frozenset()
    """The URL steps the person accepted to open (`elicitation.opened.<form>`)."""


@dataclass(frozen=True)
class Ask:
    """Ask the client these forms, then step again with the answers and this progress."""

    questions: tuple[Question | UrlQuestion, ...]
    progress: Progress


Outcome = Render | Ask | Fail
