"""Field declarations: one property of a form's object schema (C5).

`declare_field` asks the field's type (`guide.forms.types`) which keys fit and
reads each constraint keyword (`guide.forms.keywords`); it knows no type by name.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from types import MappingProxyType
from typing import Any

from guide.errors import Issue
from guide.forms.keywords import KEYWORDS, PAIRS, DeclarationError
from guide.forms.sources import LIST, WORKFLOW_PHASES, Source, parse_source
from guide.forms.types import TYPES, FieldType
from guide.spelling import near_miss

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT", "__bool__": lambda self: False})()
"""Marks a key the declaration does not give (a field without `default`, a form without `when`); false, unlike the build's "not built yet" sentinel."""

__all__ = ["ABSENT", "NO_BOUNDS", "WORKFLOW_PHASES", "Field", "Lists", "choice_options", "declare_field"]

Lists = Mapping[str, tuple[tuple[str, str | None], ...]]
"""The `lists:` of guide.yaml: each list's (value, title) pairs (`guide.docroot.config`)."""
NO_BOUNDS: Mapping[str, Any] = MappingProxyType({})
"""The bounds of a field without constraint keywords (most fields): one shared empty mapping."""


@dataclass(frozen=True, slots=True)
class Field:
    """A declared field: its type, choices and constraints, ready to check values."""

    name: str
    type: FieldType
    schema: Mapping[str, Any]
    choices: tuple[Any, ...] | None = None
    default: Any = ABSENT
    source: Source | None = None
    bounds: Mapping[str, Any] = dataclass_field(default_factory=lambda: NO_BOUNDS, compare=False)
    """Each constraint keyword the schema declares, read into the form its check uses."""
    titles: tuple[str, ...] | None = None
    """The title of each choice, when a `list:` source gives titles."""

    @property
    def has_default(self) -> bool:
        """Whether the schema declares a `default`."""
        return self.default is not ABSENT

    @property
    def live(self) -> bool:
        """Whether its choices are read from the project when its form is delivered (`git-*`, `files:`)."""
        return self.source is not None and self.source.live

    def options(self) -> list[tuple[str, str]]:
        """Every declared choice as (value, title); an untitled value is its own title."""
        if self.titles is not None and self.choices is not None:
            return list(zip(self.choices, self.titles))
        return choice_options(self.schema)


def choice_options(schema: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every choice of a field schema as (value, title), whatever its shape; an untitled value is its own title."""
    items = schema.get("items") or {}
    options = schema.get("oneOf") or items.get("anyOf")
    if options:
        return [(option["const"], option.get("title", option["const"])) for option in options]
    values = schema.get("enum") or items.get("enum") or []
    names = schema.get("enumNames") or [str(value) for value in values]
    return list(zip([str(value) for value in values], names))


def declare_field(
    name: str, schema: Any, *, allow_source: bool, phases: tuple[str, ...], lists: Lists | None = None
) -> tuple[Field | None, list[Issue]]:
    """Read one property schema into a `Field`, with every problem it has (keys relative to the field).

    `allow_source`: whether sources that read the project may be used (commands: yes; skills only `list:`).
    """
    if not isinstance(schema, Mapping):
        return None, [Issue(keys=(), message="must be a mapping with a `type`")]
    kind = TYPES.get(schema.get("type")) if isinstance(schema.get("type"), str) else None
    if kind is None:
        return None, [Issue(keys=("type",), message=f"has type {schema.get('type')!r}; accepted: {', '.join(TYPES)}")]
    issues = list(_unfit_keys(kind, schema))
    source, source_issues = _source(kind, schema, allow_source, lists or {})
    issues += source_issues
    choices = None
    if not source_issues:
        choices, choice_issues = _choices(kind, schema, phases) if source is None else _source_choices(source, phases, lists or {})
        issues += choice_issues
    bounds, bound_issues = _bounds(kind, schema)
    issues += bound_issues
    for key in ("title", "description"):
        if key in schema and not isinstance(schema[key], str):
            issues.append(Issue(keys=(key,), message=f"`{key}` must be a string"))
    if issues:
        return None, issues
    titles = None
    if source is not None and source.kind == LIST and any(title is not None for _, title in (lists or {})[source.argument]):
        titles = tuple(title or value for value, title in (lists or {})[source.argument])
    field = Field(name, kind, schema, choices, schema.get("default", ABSENT), source, bounds or NO_BOUNDS, titles)
    return field, []


def _unfit_keys(kind: FieldType, schema: Mapping[str, Any]) -> Iterator[Issue]:
    allowed = kind.keys
    article = "an" if kind.name[0] in "aeiou" else "a"
    for key in schema:
        if key not in allowed:
            found = near_miss(key, allowed) if isinstance(key, str) else None
            advice = f"did you mean `{found}`?" if found else f"it takes: {', '.join(sorted(allowed - {'type'}))}"
            if key == "source" and kind.many:
                advice = "a multi-select takes it on its items: `items: {type: string, source: ...}`"
            elif key == "source":
                advice = "a source gives text choices: only a string field (or a multi-select's items) takes one"
            yield Issue(keys=(key,), message=f"`{key}` does not fit {article} {kind.name} field; {advice}")


def _skill_source(found: Source, lists: Lists) -> str:
    """Why a skill (or a partial it includes) takes no `source`, and the choices to write instead."""
    message = f"`source: {found}` is for commands only: a skill's client receives its schema unchanged"
    if found.kind == LIST and found.argument in lists:
        listed = lists[found.argument]
        if any(title for _, title in listed):
            written = ", ".join(f"{{const: {value}, title: {title or value}}}" for value, title in listed[:3])
            return f"{message}; write the choices as a titled `oneOf: [{written}{', ...' if len(listed) > 3 else ''}]`"
        written = ", ".join(value for value, _ in listed[:6])
        return f"{message}; write the choices as an `enum: [{written}{', ...' if len(listed) > 6 else ''}]`"
    return f"{message}; write the choices as an `enum` (or a titled `oneOf`)"


def _source(kind: FieldType, schema: Mapping[str, Any], allow_source: bool, lists: Lists) -> tuple[Source | None, list[Issue]]:
    """The field's source (a string's `source`, or a multi-select's `items.source`), with what is wrong with it."""
    items = schema.get("items")
    keys, holder = (("items", "source"), items) if kind.many and isinstance(items, Mapping) else (("source",), schema)
    if "source" not in holder or (not kind.many and kind.name != "string"):
        return None, []
    found = parse_source(holder["source"], set(lists))
    if isinstance(found, str):
        return None, [Issue(keys=keys, message=found)]
    if not allow_source:
        return None, [Issue(keys=keys, message=_skill_source(found, lists))]
    if "enum" in holder or "oneOf" in holder or "anyOf" in holder:
        return None, [Issue(keys=keys, message="`source` derives the choices; remove `enum`/`oneOf`")]
    if kind.many and set(items) - {"type", "source"} or kind.many and items.get("type") != "string":
        return None, [Issue(keys=("items",), message="a multi-select with a source takes `items: {type: string, source: ...}` and nothing else")]
    if found.live and "default" in schema:
        message = f"`source: {found}` is read when the form is delivered, so a `default` cannot be checked; remove `default` (or use `list:<name>`)"
        return None, [Issue(keys=("default",), message=message)]
    return found, []


def _source_choices(source: Source, phases: tuple[str, ...], lists: Lists) -> tuple[tuple | None, list[Issue]]:
    """The choices a source gives when the form is declared: the phases, a list's values; a live source's come later."""
    if source.kind == WORKFLOW_PHASES:
        if not phases:
            return None, [Issue(keys=("source",), message="workflow is not configured: `source: workflow-phases` needs `workflow.phases` in guide.yaml")]
        return phases, []
    if source.kind == LIST:
        return tuple(value for value, _ in lists[source.argument]), []
    return None, []


def _bounds(kind: FieldType, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[Issue]]:
    bounds, issues = {}, []
    for key in kind.keywords:
        if key in schema:
            try:
                bounds[key] = KEYWORDS[key].read(schema[key])
            except DeclarationError as error:
                issues.append(Issue(keys=(key,), message=str(error)))
    for low, high in PAIRS:
        if not issues and low in bounds and high in bounds and bounds[low] > bounds[high]:
            issues.append(Issue(keys=(low,), message=f"`{low}` ({schema[low]}) is greater than `{high}` ({schema[high]})"))
    return bounds, issues


def _choices(kind: FieldType, schema: Mapping[str, Any], phases: tuple[str, ...]) -> tuple[tuple | None, list[Issue]]:
    if kind.many:
        return _item_choices(schema.get("items"))
    if "enum" in schema and "oneOf" in schema:
        return None, [Issue(keys=("oneOf",), message="declare the choices with `enum` or `oneOf`, not both")]
    if "oneOf" in schema:
        return _const_choices(schema["oneOf"], ("oneOf",))
    if "enum" not in schema:
        if "enumNames" in schema:
            return None, [Issue(keys=("enumNames",), message="`enumNames` needs an `enum` of the same length")]
        return None, []
    values = schema["enum"]
    if not isinstance(values, list) or not values:
        return None, [Issue(keys=("enum",), message="`enum` must be a non-empty list")]
    issues = [Issue(keys=("enum",), message=f"enum value {value!r} is not {kind.noun}") for value in values if not kind.is_json(value)]
    if len(set(map(repr, values))) != len(values):
        issues.append(Issue(keys=("enum",), message="`enum` lists a value twice"))
    names = schema.get("enumNames")
    if names is not None and (not isinstance(names, list) or len(names) != len(values) or not all(isinstance(n, str) for n in names)):
        issues.append(Issue(keys=("enumNames",), message="`enumNames` must be a list of strings as long as `enum`"))
    return tuple(values), issues


def _item_choices(items: Any) -> tuple[tuple | None, list[Issue]]:
    accepted = "items takes {type: string, enum: [...]} or {anyOf: [{const, title}, ...]}"
    if not isinstance(items, Mapping):
        return None, [Issue(keys=("items",), message=f"a multi-select needs `items`; {accepted}")]
    if "anyOf" in items and set(items) <= {"anyOf"}:
        return _const_choices(items["anyOf"], ("items", "anyOf"))
    values = items.get("enum")
    if set(items) != {"type", "enum"} or items["type"] != "string" or not isinstance(values, list) or not values:
        return None, [Issue(keys=("items",), message=accepted)]
    if not all(isinstance(value, str) for value in values) or len(set(values)) != len(values):
        return None, [Issue(keys=("items", "enum"), message="item choices must be distinct strings")]
    return tuple(values), []


def _const_choices(options: Any, keys: tuple[str, ...]) -> tuple[tuple | None, list[Issue]]:
    message = f"`{keys[-1]}` must be a non-empty list of {{const: <string>, title: <string>}}"
    if not isinstance(options, list) or not options:
        return None, [Issue(keys=keys, message=message)]
    for option in options:
        if (
            not isinstance(option, Mapping)
            or set(option) - {"const", "title"}
            or not isinstance(option.get("const"), str)
            or not isinstance(option.get("title", ""), str)
        ):
            return None, [Issue(keys=keys, message=f"{message}; got {option!r}")]
    values = tuple(option["const"] for option in options)
    if len(set(values)) != len(values):
        return None, [Issue(keys=keys, message=f"`{keys[-1]}` lists a value twice")]
    return values, []
