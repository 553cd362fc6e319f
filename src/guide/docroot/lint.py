"""Lint a whole docroot: every authoring problem, the notes, and a summary of what it holds (C5)."""

from dataclasses import dataclass
from pathlib import Path

from guide.docroot.frontmatter import FrontmatterError, split
from guide.docroot.partials import expansion_problems
from guide.docroot.snapshot import Snapshot
from guide.errors import Problem

MAX_NOTE_READ = 1024 * 1024
"""Documents and members larger than this are not opened to look for forms."""


@dataclass(frozen=True)
class Report:
    """The outcome of `guide check`: every problem found, every note, and counts of what was read."""

    problems: list[Problem]
    notes: list[Problem]
    summary: dict[str, int]

    def as_json(self) -> dict:
        """The machine-readable form printed by `guide check --format json`."""
        return {
            "errors": [_as_json(problem) for problem in self.problems],
            "notes": [_as_json(note) for note in self.notes],
            "summary": self.summary,
        }


def lint(snapshot: Snapshot) -> Report:
    """Check every file of the docroot, whatever its `requires-*` say."""
    layout = snapshot.layout
    entrypoints = [snapshot.sources[rel] for rel in [*layout.commands.values(), *layout.skills.values()]]
    problems = _ordered(snapshot.problems() + expansion_problems(entrypoints, snapshot.surroundings.graph))  # builds every entrypoint, in bulk
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
    plain_files = [*layout.documents.values(), *layout.members.values()]
    notes = snapshot.notes() + [note for rel in sorted(plain_files) for note in _forms_never_asked(snapshot.root, rel)]
    return Report(problems, notes, summary)


def _forms_never_asked(root: Path, rel: str) -> list[Problem]:
    """A note for a document or skill member whose frontmatter declares forms: they are never asked."""
    path = root / rel
    try:
        if path.stat().st_size > MAX_NOTE_READ:
            return []
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if not text.startswith("---") or "elicitation" not in text:
        return []
    try:
        parsed = split(text)
    except FrontmatterError:
        return []
    if "elicitation" not in parsed.meta:
        return []
    message = "`elicitation` here is never asked: documents and skill members are served as written; declare forms in a command or a SKILL.md"
    return [Problem(path=rel, line=parsed.first_line, message=message)]


def _ordered(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.path, p.line or 0, p.message))


def _as_json(problem: Problem) -> dict:
    return {"path": problem.path, "line": problem.line, "form": problem.form, "field": problem.field, "message": problem.message}


def from_json(data: dict) -> Report:
    """A report back from its machine-readable form (`Report.as_json`)."""
    return Report([Problem(**item) for item in data["errors"]], [Problem(**item) for item in data["notes"]], dict(data["summary"]))
