"""Form declarations and the authoring checks on them (C5).

`declare_forms` reads the `elicitation` mapping of one file; `combine` joins the
forms of an entrypoint and its partials into the effective `FormSet` and runs the
checks that span files (duplicates, `when`, cycles). Both collect every problem.
"""

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from guide.forms.fields import MISSING, TYPE_NAMES, Field, declare_field, is_type
from guide.forms.values import normalise_answer, problems

FORM_KEYS = frozenset({"message", "schema", "when", "fallback", "title", "description"})
# Only these survive unchanged on both protocol eras; a form's text belongs in `message`.
SCHEMA_KEYS = frozenset({"type", "properties", "required"})
FALLBACKS = ("render",)
_FORM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_FIELD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Issue:
    """An authoring mistake; `keys` locate it in the frontmatter of `origin`."""

    origin: str
    keys: tuple[Any, ...]
    form: str | None
    field: str | None
    message: str


@dataclass(frozen=True)
class Form:
    """One declared input request."""

    id: str
    message: str
    schema: Mapping[str, Any]
    fields: tuple[Field, ...]
    required: tuple[str, ...]
    when: Mapping[str, tuple[Any, ...]]
    fallback: bool
    origin: str

    def field(self, name: str) -> Field | None:
        """The form's field of that name, if it declares one."""
        return next((field for field in self.fields if field.name == name), None)


@dataclass(frozen=True)
class FormSet:
    """The effective forms of an entrypoint, in order, with an index of their fields."""

    forms: tuple[Form, ...]

    @cached_property
    def fields(self) -> dict[str, tuple[Form, Field]]:
        """Each field name with the form that supplies it."""
        return {field.name: (form, field) for form in self.forms for field in form.fields}

    @cached_property
    def digest(self) -> str:
        """A short fingerprint of the forms: it changes when any declaration that affects answers changes."""
        return _digest(self.forms)


EMPTY = FormSet(())


def declare_forms(
    elicitation: Any,
    *,
    origin: str,
    fallback_all: Any = None,
    allow_source: bool = False,
    phases: Sequence[str] = (),
) -> tuple[list[Form], list[Issue]]:
    """Read one file's `elicitation` mapping into forms, with every problem found."""
    issues: list[Issue] = []
    if fallback_all is not None and fallback_all not in FALLBACKS:
        issues.append(Issue(origin, ("fallback",), None, None, _fallback_message(fallback_all)))
    if elicitation is None:
        return [], issues
    if not isinstance(elicitation, Mapping):
        issues.append(Issue(origin, ("elicitation",), None, None, "`elicitation` must be a mapping of form id to form"))
        return [], issues
    forms = []
    for form_id, declaration in elicitation.items():
        form, form_issues = _declare_form(form_id, declaration, origin, fallback_all == "render", allow_source, tuple(phases))
        issues += form_issues
        if form is not None:
            forms.append(form)
    return forms, issues


def declared_names(elicitation: Any) -> set[str]:
    """Every property name an `elicitation` mapping declares, including those of broken forms."""
    names = set()
    for declaration in elicitation.values() if isinstance(elicitation, Mapping) else ():
        schema = declaration.get("schema") if isinstance(declaration, Mapping) else None
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        names.update(map(str, properties or ()) if isinstance(properties, Mapping) else ())
    return names


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
            issues.append(Issue(form.origin, ("elicitation", form.id), form.id, None, f"form id {form.id!r} is also declared in {seen_forms[form.id].origin}"))
        seen_forms.setdefault(form.id, form)
        for field in form.fields:
            if field.name in suppliers:
                other = suppliers[field.name][0]
                message = f"field {field.name!r} is also declared by form {other.id!r} in {other.origin}"
                issues.append(Issue(form.origin, _field_keys(form, field.name), form.id, field.name, message))
            suppliers.setdefault(field.name, (form, field))
    for form in forms:
        issues += _when_issues(form, suppliers, set(declared))
    if not issues:
        issues += _cycle_issues(forms, suppliers)
    return FormSet(tuple(forms)), issues


def _declare_form(form_id, declaration, origin, fallback_all, allow_source, phases) -> tuple[Form | None, list[Issue]]:
    keys = ("elicitation", form_id)
    if not isinstance(form_id, str) or not _FORM_ID.fullmatch(form_id):
        return None, [Issue(origin, keys, str(form_id), None, f"form id {form_id!r} must be letters, digits, '-' or '_'")]
    if not isinstance(declaration, Mapping):
        return None, [Issue(origin, keys, form_id, None, "a form must be a mapping with `message` and `schema`")]
    issues = [
        Issue(origin, keys + (key,), form_id, None, f"unknown form key `{key}`; accepted: {', '.join(sorted(FORM_KEYS))}")
        for key in declaration
        if key not in FORM_KEYS
    ]
    message = declaration.get("message")
    if not isinstance(message, str) or not message.strip():
        issues.append(Issue(origin, keys + ("message",), form_id, None, "a form needs a non-empty string `message`"))
    fallback = declaration.get("fallback")
    if fallback is not None and fallback not in FALLBACKS:
        issues.append(Issue(origin, keys + ("fallback",), form_id, None, _fallback_message(fallback)))
    when, when_issues = _read_when(declaration.get("when", MISSING), origin, form_id)
    fields, required, schema_issues = _read_schema(declaration.get("schema"), origin, form_id, allow_source, phases)
    issues += when_issues + schema_issues
    if issues:
        return None, issues
    form = Form(form_id, message, declaration["schema"], fields, required, when, fallback == "render" or fallback_all, origin)
    return form, []


def _read_schema(schema, origin, form_id, allow_source, phases) -> tuple[tuple[Field, ...], tuple[str, ...], list[Issue]]:
    keys = ("elicitation", form_id, "schema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(schema, Mapping) or schema.get("type") != "object" or not isinstance(properties, Mapping) or not properties:
        return (), (), [Issue(origin, keys, form_id, None, "`schema` must be `type: object` with a non-empty `properties` mapping")]
    issues = [
        Issue(origin, keys + (key,), form_id, None, f"unknown schema key `{key}`; accepted: {', '.join(sorted(SCHEMA_KEYS))}")
        for key in schema
        if key not in SCHEMA_KEYS
    ]
    fields = []
    for name, field_schema in properties.items():
        field_keys = keys + ("properties", name)
        if not isinstance(name, str) or not _FIELD_NAME.fullmatch(name):
            reason = "cannot start with '_'" if str(name).startswith("_") else "must be letters, digits, '-' or '_'"
            issues.append(Issue(origin, field_keys, form_id, str(name), f"field name {name!r} {reason}"))
            continue
        field, field_issues = declare_field(name, field_schema, allow_source=allow_source, phases=phases)
        issues += [Issue(origin, field_keys + issue.keys, form_id, name, f"field {name!r}: {issue.message}") for issue in field_issues]
        if field is not None:
            default_issue = _default_issue(field)
            if default_issue:
                issues.append(Issue(origin, field_keys + ("default",), form_id, name, f"field {name!r}: {default_issue}"))
            fields.append(field)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        issues.append(Issue(origin, keys + ("required",), form_id, None, "`required` must be a list of field names"))
        required = []
    for name in required:
        if name not in properties:
            issues.append(Issue(origin, keys + ("required",), form_id, name, f"`required` names {name!r}, which this form does not declare"))
    return tuple(fields), tuple(dict.fromkeys(required)), issues


def _default_issue(field: Field) -> str | None:
    if not field.has_default:
        return None
    try:
        value = normalise_answer(field, field.default)
    except ValueError as error:
        return f"default {error}"
    if value is None:
        return "default must not be empty"
    found = problems(field, value)
    return f"default {found[0]}" if found else None


def _read_when(when, origin, form_id) -> tuple[Mapping[str, tuple], list[Issue]]:
    if when is MISSING:
        return {}, []
    keys = ("elicitation", form_id, "when")
    if not isinstance(when, Mapping) or not when:
        return {}, [Issue(origin, keys, form_id, None, "`when` must be a non-empty mapping of field to value(s)")]
    conditions, issues = {}, []
    for name, expected in when.items():
        values = tuple(expected) if isinstance(expected, list) else (expected,)
        if not values or not all(isinstance(value, (str, int, float, bool)) for value in values):
            issues.append(Issue(origin, keys + (name,), form_id, str(name), f"`when` for {name!r} must be a value or a non-empty list of values"))
        conditions[str(name)] = values
    return conditions, issues


def _when_issues(form: Form, suppliers: Mapping[str, tuple[Form, Field]], declared: set[str]) -> list[Issue]:
    issues = []
    for name, values in form.when.items():
        keys = ("elicitation", form.id, "when", name)
        if name not in suppliers:
            if name not in declared:
                    issues.append(Issue(form.origin, keys, form.id, name, f"`when` names unknown field {name!r}"))
            continue
        supplier, field = suppliers[name]
        if supplier.id == form.id:
            issues.append(Issue(form.origin, keys, form.id, name, f"`when` names {name!r}, a field of the same form (self-reference)"))
        elif field.type == "array":
            issues.append(Issue(form.origin, keys, form.id, name, f"`when` cannot test the multi-select {name!r}"))
        for value in values:
            if not is_type(field.type, value):
                issues.append(Issue(form.origin, keys, form.id, name, f"`when` value {value!r} for {name!r} is not {TYPE_NAMES[field.type]}"))
            elif field.choices is not None and value not in field.choices:
                choices = ", ".join(map(str, field.choices))
                issues.append(Issue(form.origin, keys, form.id, name, f"`when` value {value!r} is not a choice of {name!r}: {choices}"))
    return issues


def _cycle_issues(forms: Sequence[Form], suppliers: Mapping[str, tuple[Form, Field]]) -> list[Issue]:
    depends = {form.id: {suppliers[name][0].id for name in form.when if name in suppliers} for form in forms}
    by_id = {form.id: form for form in forms}
    state: dict[str, str] = {}

    def visit(form_id: str, trail: list[str]) -> list[str] | None:
        state[form_id] = "open"
        for supplier in sorted(depends[form_id]):
            if state.get(supplier) == "open":
                return trail[trail.index(supplier):] + [supplier] if supplier in trail else [form_id, supplier]
            if supplier not in state:
                cycle = visit(supplier, trail + [supplier])
                if cycle:
                    return cycle
        state[form_id] = "done"
        return None

    for form in forms:
        if form.id not in state:
            cycle = visit(form.id, [form.id])
            if cycle:
                first = by_id[cycle[0]]
                return [Issue(first.origin, ("elicitation", first.id, "when"), first.id, None, f"`when` conditions form a cycle: {' -> '.join(cycle)}")]
    return []


def _field_keys(form: Form, name: str) -> tuple[str, ...]:
    return ("elicitation", form.id, "schema", "properties", name)


def _fallback_message(value: Any) -> str:
    return f"unknown fallback {value!r}; accepted: {', '.join(FALLBACKS)}"


def _digest(forms: Sequence[Form]) -> str:
    declared = [
        [form.id, form.schema, {k: list(v) for k, v in form.when.items()}, form.fallback, [list(f.choices or ()) for f in form.fields]]
        for form in forms
    ]
    text = json.dumps(declared, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
