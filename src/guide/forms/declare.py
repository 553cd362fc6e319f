"""Form declarations and the authoring checks on them (C5).

`declare_forms` reads the `elicitation` mapping of one file and collects every
problem; `guide.forms.combine` joins the forms of several files into the
effective `FormSet`.
"""

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from types import MappingProxyType
from typing import Any

from guide.errors import Issue
from guide.forms.fields import ABSENT, Field, Lists, declare_field
from guide.forms.keywords import needs_budget
from guide.forms.secrets import secret_term, url_form_advice
from guide.forms.sources import WORKFLOW_PHASES
from guide.forms.url_step import URL_MODE, form_mode_issues, read_url_form
from guide.forms.values import Invalid, normalise_answer, problems
from guide.protocol import HELP, PROJECT
from guide.spelling import boolean_key_hint, near_miss

FORM_KEYS = frozenset({"message", "schema", "when", "fallback", "title", "description", "mode", "url"})
# Only these survive unchanged on both protocol eras; a form's text belongs in `message`.
SCHEMA_KEYS = frozenset({"type", "properties", "required"})
FALLBACKS = ("render",)

NO_CONDITIONS: Mapping[str, tuple[Any, ...]] = MappingProxyType({})
"""The `when` of a form asked unconditionally (most forms): one shared empty mapping."""

_FORM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_FIELD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclass(frozen=True, slots=True)
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
    url: str | None = None
    """A URL-mode form's link template (`mode: url`): it has no schema and supplies no field."""

    def field(self, name: str) -> Field | None:
        """The form's field of that name, if it declares one."""
        return next((field for field in self.fields if field.name == name), None)


@dataclass(frozen=True, slots=True)
class FormSet:
    """The effective forms of an entrypoint, in order, with an index of their fields."""

    forms: tuple[Form, ...]
    slow_checks: bool = dataclass_field(init=False, compare=False, repr=False)
    """Whether checking a value may take a time budget (a pattern only the backtracking engine runs): the server steps such forms off its event loop."""
    live: bool = dataclass_field(init=False, compare=False, repr=False)
    """Whether a field reads a live source (`git-*`, `files:`): the server reads it off its event loop for every read."""
    links: bool = dataclass_field(init=False, compare=False, repr=False)
    """Whether a form is a URL step (`mode: url`): only then does a step look for links a client cannot open."""
    phased: bool = dataclass_field(init=False, compare=False, repr=False)
    """Whether a field's choices are the workflow phases (`source: workflow-phases`): only then do the forms need the active phase."""
    _index: Mapping[str, tuple[Form, Field]] | None = dataclass_field(init=False, default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "live", any(field.live for form in self.forms for field in form.fields))
        object.__setattr__(self, "links", any(form.url is not None for form in self.forms))
        phased = any(field.source is not None and field.source.kind == WORKFLOW_PHASES for form in self.forms for field in form.fields)
        object.__setattr__(self, "phased", phased)
        slow = any(needs_budget(bound) for form in self.forms for field in form.fields for bound in field.bounds.values())
        object.__setattr__(self, "slow_checks", slow)

    @property
    def fields(self) -> Mapping[str, tuple[Form, Field]]:
        """Each field name with the form that supplies it.

        Made when first asked for and kept (a read asks for it every time), not
        with the set: a listing builds every entrypoint and a read comes for few.
        """
        index = self._index
        if index is None:
            index = {field.name: (form, field) for form in self.forms for field in form.fields}
            object.__setattr__(self, "_index", index)  # two threads may both make it: the same index
        return index


def digest(forms: FormSet) -> str:
    """A short fingerprint of the forms: it changes when any declaration that affects answers changes."""
    return _digest(forms.forms)


EMPTY = FormSet(())


def declare_forms(
    elicitation: Any,
    *,
    origin: str,
    fallback_all: Any = None,
    allow_source: bool = False,
    phases: Sequence[str] = (),
    lists: Lists | None = None,
) -> tuple[list[Form], list[Issue]]:
    """Read one file's `elicitation` mapping into forms, with every problem found (`lists`: guide.yaml's, for `list:` sources)."""
    issues: list[Issue] = []
    if fallback_all is not None and fallback_all not in FALLBACKS:
        issues.append(Issue(origin=origin, keys=("fallback",), message=_fallback_message(fallback_all)))
    if elicitation is None:
        return [], issues
    if not isinstance(elicitation, Mapping):
        issues.append(Issue(origin=origin, keys=("elicitation",), message="`elicitation` must be a mapping of form id to form"))
        return [], issues
    forms = []
    for form_id, declaration in elicitation.items():
        form, form_issues = _declare_form(form_id, declaration, origin, fallback_all == "render", (allow_source, tuple(phases), lists or {}))
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


def _declare_form(form_id, declaration, origin, fallback_all, sourcing) -> tuple[Form | None, list[Issue]]:
    if not isinstance(form_id, str) or not _FORM_ID.fullmatch(form_id):
        message = f"form id {form_id!r} must be letters, digits, '-' or '_'{boolean_key_hint(form_id)}"
        return None, [form_issue(origin, str(form_id), (), message)]
    if not isinstance(declaration, Mapping):
        return None, [form_issue(origin, form_id, (), "a form must be a mapping with `message` and `schema`")]
    issues = [form_issue(origin, form_id, (key,), _unknown("form key", key, FORM_KEYS)) for key in declaration if key not in FORM_KEYS]
    message = declaration.get("message")
    if not isinstance(message, str) or not message.strip():
        issues.append(form_issue(origin, form_id, ("message",), "a form needs a non-empty string `message`"))
    fallback = declaration.get("fallback")
    if fallback is not None and fallback not in FALLBACKS:
        issues.append(form_issue(origin, form_id, ("fallback",), _fallback_message(fallback)))
    when, when_issues = _read_when(declaration.get("when", ABSENT), origin, form_id)
    issues += when_issues
    fallback = fallback == "render" or fallback_all
    if declaration.get("mode") == URL_MODE:
        url, url_issues = read_url_form(declaration)
        issues += [form_issue(origin, form_id, keys, text) for keys, text in url_issues]
        return (None, issues) if issues else (Form(form_id, message, {}, (), (), when, fallback, origin, url), [])
    issues += [form_issue(origin, form_id, keys, text) for keys, text in form_mode_issues(declaration)]
    fields, required, schema_issues = _read_schema(declaration.get("schema"), origin, form_id, sourcing)
    issues += schema_issues
    if issues:
        return None, issues
    return Form(form_id, message, declaration["schema"], fields, required, when, fallback, origin), []


def _read_when(when, origin, form_id) -> tuple[Mapping[str, tuple], list[Issue]]:
    if when is ABSENT:
        return NO_CONDITIONS, []
    if not isinstance(when, Mapping) or not when:
        return {}, [form_issue(origin, form_id, ("when",), "`when` must be a non-empty mapping of field to value(s)")]
    conditions, issues = {}, []
    for name, expected in when.items():
        values = tuple(expected) if isinstance(expected, list) else (expected,)
        if not values or not all(isinstance(value, (str, int, float, bool)) for value in values):
            message = f"`when` for {name!r} must be a value or a non-empty list of values"
            issues.append(form_issue(origin, form_id, ("when", name), message, field=str(name)))
        conditions[str(name)] = values
    return conditions, issues


def _read_schema(schema, origin, form_id, sourcing) -> tuple[tuple[Field, ...], tuple[str, ...], list[Issue]]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(schema, Mapping) or schema.get("type") != "object" or not isinstance(properties, Mapping) or not properties:
        return (), (), [form_issue(origin, form_id, ("schema",), "`schema` must be `type: object` with a non-empty `properties` mapping")]
    issues = [form_issue(origin, form_id, ("schema", key), _unknown("schema key", key, SCHEMA_KEYS)) for key in schema if key not in SCHEMA_KEYS]
    fields = []
    for name, field_schema in properties.items():
        keys = ("schema", "properties", name)
        reason = _field_name_problem(name)
        if reason:
            issues.append(form_issue(origin, form_id, keys, f"field name {name!r} {reason}", field=str(name)))
            continue
        secret = _secret_problem(name, field_schema)
        if secret:
            issues.append(form_issue(origin, form_id, keys, f"field {name!r} {secret}", field=name))
            continue
        allow_source, phases, lists = sourcing
        field, field_issues = declare_field(name, field_schema, allow_source=allow_source, phases=phases, lists=lists)
        issues += [form_issue(origin, form_id, keys + issue.keys, f"field {name!r}: {issue.message}", field=name) for issue in field_issues]
        if field is not None:
            default_issue = _default_issue(field)
            if default_issue:
                issues.append(form_issue(origin, form_id, keys + ("default",), f"field {name!r}: {default_issue}", field=name))
            fields.append(field)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        issues.append(form_issue(origin, form_id, ("schema", "required"), "`required` must be a list of field names"))
        required = []
    for name in required:
        if name not in properties:
            resembled = near_miss(str(name), [str(key) for key in properties])
            message = f"`required` names {name!r}, which this form does not declare" + (f"; did you mean {resembled!r}?" if resembled else "")
            issues.append(form_issue(origin, form_id, ("schema", "required"), message, field=name))
    return tuple(fields), tuple(dict.fromkeys(required)), issues


def _field_name_problem(name: Any) -> str | None:
    if name == HELP:
        return f"is reserved: `?{HELP}` asks for help, so a field of that name could never be supplied; rename it"
    if name == PROJECT:
        return f"is reserved: `{PROJECT}=<path>` names the project a read is about (C10), so a field of that name could never be supplied; rename it"
    if isinstance(name, str) and _FIELD_NAME.fullmatch(name):
        return None
    if str(name).startswith("_"):
        return "cannot start with '_'"
    return f"must be letters, digits, '-' or '_'{boolean_key_hint(name)}"


def _secret_problem(name: str, schema: Any) -> str | None:
    title = schema.get("title") if isinstance(schema, Mapping) else None
    term = secret_term(name) or (secret_term(title) if isinstance(title, str) else None)
    if term is None:
        return None
    said = "its name" if secret_term(name) else f"its title {title!r}"
    return (
        f"asks for a secret ({said} says {term!r}): the MCP specification forbids asking for passwords, API keys, tokens"
        " or other secrets in form mode (answers stay in the client's transcript and the continuation state); ask for it out of band"
        f" on a page of yours with a `mode: url` form instead, for example {url_form_advice(name)}"
    )


def _unknown(what: str, key: Any, known: frozenset[str]) -> str:
    found = near_miss(key, known) if isinstance(key, str) else None
    if found:
        return f"unknown {what} `{key}`; did you mean `{found}`?"
    return f"unknown {what} `{key}`; accepted: {', '.join(sorted(known))}{boolean_key_hint(key)}"


def form_issue(origin: str, form_id: str, keys: tuple[Any, ...], message: str, field: str | None = None) -> Issue:
    """An authoring mistake inside one form; `keys` lead to it from the form's declaration."""
    return Issue(origin=origin, keys=("elicitation", form_id, *keys), form=form_id, field=field, message=message)


def _default_issue(field: Field) -> str | None:
    if not field.has_default:
        return None
    try:
        value = normalise_answer(field, field.default)
    except Invalid as error:
        return f"default {error}"
    if value is None:
        return "default must not be empty"
    found = problems(field, value)
    return f"default {found[0]}" if found else None


def _fallback_message(value: Any) -> str:
    return f"unknown fallback {value!r}; accepted: {', '.join(FALLBACKS)}"


def _digest(forms: Sequence[Form]) -> str:
    declared = [
        [form.id, form.schema, {k: list(v) for k, v in form.when.items()}, form.fallback, [list(f.choices or ()) for f in form.fields]]
        for form in forms
    ]
    text = json.dumps(declared, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
