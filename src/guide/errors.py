"""The one error tree of Guide; the server translates it into MCP errors in one place."""

from dataclasses import dataclass


class GuideError(Exception):
    """Base of every error Guide reports to a user; its text is one clear line."""


@dataclass(frozen=True)
class Problem:
    """One authoring mistake: where it is and what is wrong."""

    path: str
    line: int | None
    form: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        form = f"form {self.form}: " if self.form else ""
        return f"{where}: {form}{self.message}"


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


class StateError(GuideError):
    """A continuation state cannot be used for this request."""
