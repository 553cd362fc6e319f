"""Join the forms of an entrypoint and its partials into the effective forms (C5).

The checks here span forms and files: a form id or field declared twice, `when`
conditions naming fields of other forms, and dependency cycles between forms.
"""

from collections.abc import Iterable, Mapping, Sequence

from guide.errors import Issue
from guide.forms.declare import Form, FormSet, form_issue
from guide.forms.fields import Field


def combine(forms: Sequence[Form], declared: Iterable[str] = ()) -> tuple[FormSet, list[Issue]]:
    """Join forms in order into a `FormSet`, checking duplicates, `when` and cycles across them.

    `declared` names every property seen, also in forms that failed their own
    checks: a `when` naming one of those is not reported again as unknown.
    """
    issues: list[Issue] = []
    seen_forms: dict[str, Form] = {}
    suppliers: dict[str, tuple[Form, Field]] = {}
    for form in forms:
        if form.id in seen_forms:
            issues.append(form_issue(form.origin, form.id, (), f"form id {form.id!r} is also declared in {seen_forms[form.id].origin}"))
        seen_forms.setdefault(form.id, form)
        for field in form.fields:
            if field.name in suppliers:
                other = suppliers[field.name][0]
                message = f"field {field.name!r} is also declared by form {other.id!r} in {other.origin}"
                issues.append(form_issue(form.origin, form.id, ("schema", "properties", field.name), message, field=field.name))
            suppliers.setdefault(field.name, (form, field))
    for form in forms:
        issues += _when_issues(form, suppliers, set(declared))
    if not issues:
        issues += _cycle_issues(forms, suppliers)
    return FormSet(tuple(forms)), issues


def _when_issues(form: Form, suppliers: Mapping[str, tuple[Form, Field]], declared: set[str]) -> list[Issue]:
    issues = []
    for name, values in form.when.items():

        def add(message: str, name: str = name) -> None:
            issues.append(form_issue(form.origin, form.id, ("when", name), message, field=name))

        if name not in suppliers:
            if name not in declared:
                add(f"`when` names unknown field {name!r}")
            continue
        supplier, field = suppliers[name]
        if supplier.id == form.id:
            add(f"`when` names {name!r}, a field of the same form (self-reference)")
        elif field.type.many:
            add(f"`when` cannot test the multi-select {name!r}")
        for value in values:
            if not field.type.is_json(value):
                add(f"`when` value {value!r} for {name!r} is not {field.type.noun}")
            elif field.choices is not None and value not in field.choices:
                add(f"`when` value {value!r} is not a choice of {name!r}: {', '.join(map(str, field.choices))}")
    return issues


def _cycle_issues(forms: Sequence[Form], suppliers: Mapping[str, tuple[Form, Field]]) -> list[Issue]:
    depends = {form.id: {suppliers[name][0].id for name in form.when if name in suppliers} for form in forms}
    by_id = {form.id: form for form in forms}
    state: dict[str, str] = {}
    for form in forms:
        if form.id not in state:
            cycle = _cycle_from(form.id, [form.id], depends, state)
            if cycle:
                first = by_id[cycle[0]]
                return [form_issue(first.origin, first.id, ("when",), f"`when` conditions form a cycle: {' -> '.join(cycle)}")]
    return []


def _cycle_from(form_id: str, trail: list[str], depends: Mapping[str, set[str]], state: dict[str, str]) -> list[str] | None:
    """The first cycle of `when` dependencies reached from `form_id` (a module function, not a closure: a
    recursive closure is a reference cycle, garbage the collector must find, once per entrypoint built)."""
    state[form_id] = "open"
    for supplier in sorted(depends[form_id]):
        if state.get(supplier) == "open":
            return trail[trail.index(supplier):] + [supplier] if supplier in trail else [form_id, supplier]
        if supplier not in state:
            cycle = _cycle_from(supplier, trail + [supplier], depends, state)
            if cycle:
                return cycle
    state[form_id] = "done"
    return None
