"""Lint a whole docroot: every authoring problem and a summary of what it holds (C5)."""

from dataclasses import dataclass

from guide.docroot.snapshot import Snapshot
from guide.errors import Problem


@dataclass(frozen=True)
class Report:
    """The outcome of `guide check`: every problem found and counts of what was read."""

    problems: list[Problem]
    summary: dict[str, int]

    def as_json(self) -> dict:
        """The machine-readable form printed by `guide check --format json`."""
        return {"errors": [_as_json(problem) for problem in self.problems], "summary": self.summary}


def lint(snapshot: Snapshot) -> Report:
    """Check every file of the docroot, whatever its `requires-*` say."""
    problems = snapshot.problems()  # builds every entrypoint, in bulk
    layout = snapshot.layout
    forms = set()
    for kind, table in (("command", layout.commands), ("skill", layout.skills)):
        for name in table:
            forms.update((form.origin, form.id) for form in snapshot.entrypoint(kind, name).forms.forms)
    summary = {
        "commands": len(layout.commands),
        "skills": len(layout.skills),
        "partials": len(layout.partials),
        "documents": len(layout.documents),
        "forms": len(forms),
    }
    return Report(problems, summary)


def _as_json(problem: Problem) -> dict:
    return {"path": problem.path, "line": problem.line, "form": problem.form, "field": problem.field, "message": problem.message}
