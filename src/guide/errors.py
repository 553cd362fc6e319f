"""The one error tree of Guide, and the two shapes of an authoring mistake.

Every error a user sees is a `GuideError` whose text is one clear line; the
server translates them into MCP errors in one place (`guide.server.errors`).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guide.text import one_line


@dataclass(frozen=True, kw_only=True)
class Issue:
    """An authoring mistake found in YAML data: `keys` lead to it from the top of `origin`'s frontmatter."""

    message: str
    keys: tuple[Any, ...] = ()
    origin: str = ""
    form: str | None = None
    field: str | None = None


@dataclass(frozen=True, kw_only=True)
class Problem:
    """An authoring mistake located in the docroot: file, line, form, field and what is wrong."""

    path: str
    message: str
    line: int | None = None
    form: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        form = f"form {self.form}: " if self.form else ""
        return one_line(f"{where}: {form}{self.message}")  # a name may hold a newline: the problem stays one line


class GuideError(Exception):
    """Base of every error Guide reports to a user; its text is one clear line.

    `data` is what a client can act on without parsing the text: for a failed
    interaction (C7.11), the shape `guide.forms.failure.Fail.data` builds and
    docs/errors.md documents; None for other errors.
    """

    def __init__(self, message: str, *, data: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.data = data


class AuthoringError(GuideError):
    """A file of the docroot is declared wrongly; every problem found is kept."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")


class NotFoundError(GuideError):
    """No entrypoint, skill member or document answers to the address."""


class InputError(GuideError):
    """Input was invalid, declined, cancelled or missing; nothing was rendered."""


class MissingInputError(InputError):
    """The client cannot answer forms and keywords that only a form could supply are missing (C7.6)."""


class StateError(GuideError):
    """A continuation state cannot be used for this request."""


class UnavailableError(GuideError):
    """Guide cannot serve now, whatever the request (its docroot folder is gone); the same request may succeed later."""
