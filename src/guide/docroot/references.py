"""Body references that name nothing (C5, C9): `kwargs.<name>` naming no field, `elicitation.defaulted_forms.<id>` no form.

A reference is looked for in the entrypoint's body and in every partial it
renders (`{{>name}}`, through partials). It is an authoring error when it is a
near miss of a field or form id (C5's rule: a caller could not supply it either,
C6) and a note otherwise: callers may pass keywords no form declares.

The names counted as declared are generous, so that no configuration of flags
makes a correct body wrong: the fields and `args` of the entrypoint, and the
fields and form ids of every partial it includes or renders, whatever their
`requires-*` say (a partial rendered without being in `includes` has its own note).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from guide.docroot.facts import Facts
from guide.docroot.frontmatter import Front, Parsed, listed
from guide.errors import Problem
from guide.forms.declare import declared_names
from guide.render import DEFAULTED_ROOT, FIELD_ROOT, OPENED_ROOT
from guide.spelling import near_miss


@dataclass(frozen=True)
class Declared:
    """What a body may name: field names (`args` included) and form ids."""

    fields: frozenset[str]
    forms: frozenset[str]


def report(path: str, includes: Iterable[str], files: Facts) -> tuple[list[Problem], list[Problem]]:
    """The errors and notes of an entrypoint's body references, and of those in the partials it renders."""
    rendered = files.partials_reached(name for name, _ in files.template(path).partials)
    names = [name for name in dict.fromkeys([*includes, *rendered]) if name in files.partials]
    declaring = [path, *(files.partials[name] for name in names)]
    declared = _declared(front.meta for front in (files.front(rel) for rel in declaring) if isinstance(front, Front))
    problems: list[Problem] = []
    notes: list[Problem] = []
    for body in [path, *(files.partials[name] for name in rendered)]:
        by = "" if body == path else f" (rendered by {path})"
        for problem, is_error in _findings(body, files, declared, by):
            (problems if is_error else notes).append(problem)
    return problems, notes


def _declared(metas: Iterable[Mapping[str, Any]]) -> Declared:
    fields: set[str] = set()
    forms: set[str] = set()
    for meta in metas:
        elicitation = meta.get("elicitation")
        fields |= declared_names(elicitation)
        forms |= {str(form) for form in elicitation} if isinstance(elicitation, Mapping) else set()
        fields |= set(listed(meta, "args"))
    return Declared(frozenset(fields), frozenset(forms))


def _findings(body: str, files: Facts, declared: Declared, by: str) -> Iterable[tuple[Problem, bool]]:
    parsed = files.parsed(body)
    if not isinstance(parsed, Parsed):
        return
    for label, line in files.template(body).references:
        found = _finding(label, declared)
        if found is not None:
            message, is_error = found
            yield Problem(path=body, line=parsed.body_line + line - 1, message=message + by), is_error


def _finding(label: str, declared: Declared) -> tuple[str, bool] | None:
    """What is wrong with one reference (its message, and whether it is an error), or None when it names something."""
    if label.startswith(FIELD_ROOT):
        root, known, what = FIELD_ROOT, declared.fields, "field"
    else:
        root, known, what = (OPENED_ROOT if label.startswith(OPENED_ROOT) else DEFAULTED_ROOT), declared.forms, "form"
    name = label[len(root):].split(".")[0]
    if not name or name in known:
        return None
    found = near_miss(name, sorted(known))
    if found:
        return f"`{root}{name}` names no {what}; did you mean `{found}`?", True
    if what == "field":
        return f"`{root}{name}` names no field of this entrypoint's forms, so it renders empty unless a caller passes the keyword `{name}`", False
    return f"`{root}{name}` names no form of this entrypoint, so it is never true", False
