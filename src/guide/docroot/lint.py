"""Lint a whole docroot: every authoring problem, the notes, and a summary of what it holds (C2, C5); `guide check`'s report.

The report is made here whole: configuration (with its collections and
instructions), layout, entrypoints, partials, documents, skill members and
the scenario files of `_tests` (`lint`), and kept in the store while nothing it
depends on changed (`checked`, the store's `reports` kind).
"""

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guide import collector
from guide.docroot import bundles, documents, entrypoints, files
from guide.docroot.ahead import parse_ahead
from guide.docroot.built import Built
from guide.docroot.frontmatter import FrontmatterError, Parsed, split
from guide.docroot.memo import Once
from guide.docroot.partials import expansion_problem
from guide.docroot.scenarios import checks as scenario_checks
from guide.docroot.scenarios import folder as scenario_folder
from guide.docroot.snapshot import LISTED_ROLES
from guide.docroot.store import reports
from guide.docroot.store.disk import Store
from guide.docroot.store.parses import RACY_NS
from guide.errors import Problem

PROBLEM_FIELDS = {"path", "line", "form", "field", "message"}
REPORT: Once[tuple[list[Problem], list[Problem]]] = Once("the report of the configuration, layout, partials and entrypoints")
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
    problems, notes = report(built)  # builds every entrypoint
    layout = built.snapshot.layout
    for rel in layout.documents.values():
        document_problems, document_notes = documents.checks(built, rel)
        problems, notes = problems + list(document_problems), notes + list(document_notes)
    notes = notes + [note for rel in sorted(layout.members.values()) for note in _forms_never_asked(built.snapshot.root, rel)]
    scenario_problems, scenario_notes = scenario_checks.report(built)
    problems, notes = problems + scenario_problems, notes + scenario_notes
    return Report(_ordered(problems), _ordered(notes), _summary(built))


def report(built: Built) -> tuple[list[Problem], list[Problem]]:
    """Every authoring problem and note of the configuration, layout, partials and entrypoints (whatever their `requires-*`).

    This is `lint`'s report but for documents and skill members."""
    return built.value(REPORT, lambda: _report(built))


def checked(built: Built, store: Store, workers: int = 1) -> Report:
    """The lint report of a docroot: the kept one if nothing it depends on changed, else a new one (then kept).

    With `workers` above 1, a new report's files are parsed ahead in that many processes (`ahead.py`).
    Checking every file is bulk work: the garbage collector is paused meanwhile (`guide.collector`)."""
    with collector.paused():
        return _checked(built, store, workers)


def _checked(built: Built, store: Store, workers: int) -> Report:
    mark, name = fingerprint(built), str(built.snapshot.root)
    kept = reports.load(store, name, mark)
    if kept is not None and _same_texts(built, kept.texts):
        try:
            return from_json(kept.report)
        except ValueError:
            pass  # not a report this code wrote: made again, and kept
    parse_ahead(built.files, workers)
    found = lint(built)
    reports.save(store, name, reports.Kept(mark, _racy_texts(built), found.as_json()))
    return found


def fingerprint(built: Built) -> str:
    """A digest of everything a lint report of this docroot depends on, contents aside (the stamps stand for them)."""
    snapshot, digest = built.snapshot, hashlib.blake2b(digest_size=20)
    layout = snapshot.layout
    for part in (repr(snapshot.config), repr(snapshot.config_problems), repr(layout.problems), repr(layout.notes)):
        digest.update(part.encode("utf-8", "surrogatepass"))
    for role in LISTED_ROLES:
        digest.update(repr(sorted(getattr(layout, role).items())).encode("utf-8", "surrogatepass"))
    for rel, stamp in sorted(_stamps(built).items()):
        digest.update(f"\0{rel}\0{stamp}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _report(built: Built) -> tuple[list[Problem], list[Problem]]:
    layout = built.snapshot.layout
    problems, notes = [], list(layout.notes)
    # Each entrypoint whole, one after the other: its text and template facts are used while still in their memos.
    # Its text is read first and kept, so its frontmatter and its body come from one read of the file.
    for kind in ("command", "skill"):
        for name, rel in built.snapshot.table(kind).items():
            built.parsed(rel)
            found, noted = built.checks(built.entrypoint(kind, name))
            problems += [*found, *_too_large(built, rel)]
            notes += noted
    problems += [*built.snapshot.config_problems, *layout.problems, *entrypoints.alias_problems(layout.commands, built)]
    for rel in layout.partials.values():
        partial_problems, partial_notes = entrypoints.partial_report(rel, built)
        problems += partial_problems
        notes += partial_notes
    bundle_problems, bundle_notes = bundles.report(built)
    return _ordered(problems + bundle_problems), _ordered(notes + bundle_notes)


def _too_large(built: Built, rel: str) -> list[Problem]:
    """The error of an entrypoint whose partials alone expand past the output cap (reported by `guide check` only)."""
    parsed, facts = built.parsed(rel), built.template(rel)
    if not isinstance(parsed, Parsed) or not facts.inclusions:
        return []
    found = expansion_problem(rel, parsed.body_line, facts, built.expansion(rel), built.indentation(rel))
    return [found] if found is not None else []


def _stamps(built: Built) -> dict:
    snapshot = built.snapshot
    scenarios = scenario_folder.stamps(snapshot.root)  # scenario files, their snapshots and projects
    return {**snapshot.layout.stamps, **{rel: source.stamp for rel, source in snapshot.sources.items()}, **scenarios}


def _racy_texts(built: Built) -> dict[str, str]:
    """The digest of each file changed too recently for its stamp to tell a later change (see `RACY_NS`)."""
    newest = time.time_ns() - RACY_NS
    return {rel: _text_digest(built, rel) for rel, stamp in _stamps(built).items()
            if not rel.endswith("/") and (stamp is None or stamp[3] > newest)}  # a folder of `_tests` has no text


def _same_texts(built: Built, texts: dict[str, str]) -> bool:
    return all(_text_digest(built, rel) == kept for rel, kept in texts.items())


def _text_digest(built: Built, rel: str) -> str:
    try:
        data = files.read_bytes(files.real_path(built.snapshot.root, rel), built.files.limit)
    except files.Refused as error:
        return f"unreadable: {error}"
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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
    return sorted(set(problems), key=lambda p: (p.path, p.line or 0, p.message))


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
