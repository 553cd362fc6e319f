"""What one step of an interaction takes and gives (C7): the request, the progress so far, the client's answers, the questions and the outcomes.

`guide.forms.step.step` returns an `Outcome`: `Render`, `Ask` or `Fail`
(`guide.forms.failure`). The records are plain and frozen; nothing here decides.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal

from guide.forms.declare import EMPTY, FormSet, digest
from guide.forms.failure import ADDRESS, Fail, Route
from guide.forms.sources import Live
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
    seconds: float | None = None
    """How long the form was with the client before this response came back (None: not known)."""


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


@dataclass(frozen=True)
class Request:
    """What one read of an entrypoint brings: its forms, keywords and args, and the client's reach."""

    entrypoint: str
    forms: FormSet = EMPTY
    keywords: Mapping[str, tuple[str, ...]] = dataclass_field(default_factory=dict)
    args: tuple[str, ...] = ()
    arg_fields: tuple[str, ...] = ()
    active_phase: str | None = None
    can_elicit: bool = True
    route: Route = ADDRESS
    """How the caller reads again (an address, or a prompt's arguments): where a failure tells the agent to go back (C7.12 c)."""
    url_mode: bool = False
    """Whether the client opens URL steps (it declared URL-mode elicitation); else each takes its fallback or fails with its link."""
    url_hosts: tuple[str, ...] = ()
    digest: str = ""
    """The forms' fingerprint (`declare.digest`), which continuation state carries; worked out here when not given."""
    project: str = ""
    """The project folder the read named (C10), which continuation state carries so a retry cannot change it; empty: the server's own."""
    live: Mapping[str, Live] = dataclass_field(default_factory=dict)
    """What each live-sourced field (`git-*`, `files:`) offers in this read, as the server read it (C5 sources)."""
    unread_decline: float = 0.0
    """A decline that came back sooner than this many seconds after its form was asked is no person's (at most
    `guide.clients.CEILING`; 0: none is): the read goes on as for a client without forms (C7.10)."""

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", digest(self.forms))
