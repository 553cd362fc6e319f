"""Lint a whole docroot: every authoring problem, the notes, and a summary of what it holds (C2, C5)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guide.docroot import documents, files
from guide.docroot.built import Built
from guide.docroot.frontmatter import FrontmatterError, split
from guide.errors import Problem

PROBLEM_FIELDS = {"path", "line", "form", "field", "message"}
MAX_NOTE_READ = 1024 * 1024
"""Skill members larger than this are not opened to look for forms."""


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


def lint(built: Built) -> Report:
    """Check every file of the docroot, whatever its `requires-*` say."""
    problems, notes = built.report()  # builds every entrypoint
    layout = built.snapshot.layout
    for rel in layout.documents.values():
        document_problems, document_notes = documents.checks(built, rel)
        problems, notes = problems + list(document_problems), notes + list(document_notes)
    notes = notes + [note for rel in sorted(layout.members.values()) for note in _forms_never_asked(built.root, rel)]
    return Report(_ordered(problems), _ordered(notes), _summary(built))


def _summary(built: Built) -> dict[str, int]:
    layout = built.snapshot.layout
    forms = set()
    for kind, table in (("command", layout.commands), ("skill", layout.skills)):
        for name in table:
            forms.update((form.origin, form.id) for form in built.entrypoint(kind, name).forms.forms)
    return {
        "commands": len(layout.commands),
        "skills": len(layout.skills),
        "partials": len(layout.partials),
        "documents": len(layout.documents),
        "forms": len(forms),
    }


def _forms_never_asked(root: Path, rel: str) -> list[Problem]:
    """A note for a skill member whose frontmatter declares forms: they are never asked (a member is served as written)."""
    try:
        text = files.read_text(root, rel, MAX_NOTE_READ)
    except files.Refused:
        return []
    if not text.startswith("---") or "elicitation" not in text:
        return []
    try:
        parsed = split(text)
    except FrontmatterError:
        return []
    if "elicitation" not in parsed.meta:
        return []
    message = "`elicitation` here is never asked: a skill member is served as written; declare forms in a command or a SKILL.md"
    return [Problem(path=rel, line=parsed.first_line, message=message)]


def _ordered(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.path, p.line or 0, p.message))


def _as_json(problem: Problem) -> dict:
    return {"path": problem.path, "line": problem.line, "form": problem.form, "field": problem.field, "message": problem.message}


def from_json(data: Any) -> Report:
    """A report back from its machine-readable form (`Report.as_json`); ValueError if `data` is not one."""
    if not isinstance(data, dict) or not all(isinstance(data.get(key), list) for key in ("errors", "notes")):
        raise ValueError("not a report")
    summary = data.get("summary")
    if not isinstance(summary, dict) or not all(isinstance(key, str) and type(count) is int for key, count in summary.items()):
        raise ValueError("not a report summary")
    return Report([_problem(item) for item in data["errors"]], [_problem(item) for item in data["notes"]], dict(summary))


def _problem(item: Any) -> Problem:
    if not isinstance(item, dict) or set(item) != PROBLEM_FIELDS or not isinstance(item["path"], str) or not isinstance(item["message"], str):
        raise ValueError("not a problem")
    if not (item["line"] is None or type(item["line"]) is int) or not all(item[key] is None or isinstance(item[key], str) for key in ("form", "field")):
        raise ValueError("not a problem")
    return Problem(**item)
