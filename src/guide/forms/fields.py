"""Field declarations: one property of a form's object schema (C5)."""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import re2

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING", "__bool__": lambda self: False})()
"""Marks a field without a `default`."""

WORKFLOW_PHASES = "workflow-phases"
FORMATS = ("email", "uri", "date", "date-time")
COMMON_KEYS = frozenset({"type", "title", "description", "default"})
KEYS_BY_TYPE = {
    "string": COMMON_KEYS
    | {"minLength", "maxLength", "pattern", "format", "enum", "oneOf", "enumNames", "source"},
    "integer": COMMON_KEYS | {"minimum", "maximum", "enum"},
    "number": COMMON_KEYS | {"minimum", "maximum", "enum"},
    "boolean": COMMON_KEYS,
    "array": COMMON_KEYS | {"items", "minItems", "maxItems"},
}
TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list of strings",
}
_REGEX_OPTIONS = re2.Options()
_REGEX_OPTIONS.log_errors = False


@dataclass(frozen=True)
class Field:
    """A declared field: its type, choices and constraints, ready to check values."""

    name: str
    type: str
    schema: Mapping[str, Any]
    choices: tuple[Any, ...] | None = None
    default: Any = MISSING
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    pattern: str | None = None
    format: str | None = None
    source: str | None = None
    matcher: Any = dataclass_field(default=None, compare=False, repr=False)

    @property
    def has_default(self) -> bool:
        """Whether the schema declares a `default`."""
        return self.default is not MISSING


@dataclass(frozen=True)
class FieldIssue:
    """An authoring mistake in one field; `keys` locate it below the field's schema."""

    keys: tuple[str, ...]
    message: str


def choice_options(schema: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every choice of a field schema as (value, title), whatever its shape; an untitled value is its own title."""
    items = schema.get("items") or {}
    options = schema.get("oneOf") or items.get("anyOf")
    if options:
        return [(option["const"], option.get("title", option["const"])) for option in options]
    values = schema.get("enum") or items.get("enum") or []
    names = schema.get("enumNames") or [str(value) for value in values]
    return list(zip([str(value) for value in values], names))


def is_type(type_name: str, value: Any) -> bool:
    """Whether a JSON value has the declared primitive type (`3.0` is an integer)."""
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if type_name == "integer":
        return isinstance(value, int) or value.is_integer()
    return type_name == "number" and value == value and abs(value) != float("inf")


def compile_pattern(pattern: str) -> Any:
    """Compile a `pattern` with an engine whose matching time is linear in the input."""
    return re2.compile(pattern, _REGEX_OPTIONS)


def declare_field(
    name: str, schema: Any, *, allow_source: bool, phases: tuple[str, ...]
) -> tuple[Field | None, list[FieldIssue]]:
    """Read one property schema into a `Field`, with every problem it has."""
    if not isinstance(schema, Mapping):
        return None, [FieldIssue((), "must be a mapping with a `type`")]
    type_name = schema.get("type")
    if type_name not in KEYS_BY_TYPE:
        accepted = ", ".join(KEYS_BY_TYPE)
        return None, [FieldIssue(("type",), f"has type {type_name!r}; accepted: {accepted}")]
    issues = list(_unfit_keys(type_name, schema, allow_source))
    choices, choice_issues = _choices(type_name, schema, phases)
    issues += choice_issues
    issues += _bound_issues(type_name, schema)
    matcher = None
    pattern = schema.get("pattern")
    if "pattern" in schema:
        matcher, pattern_issue = _pattern(pattern)
        issues += pattern_issue
    if schema.get("format", "email") not in FORMATS:
        issues.append(FieldIssue(("format",), f"has unknown format {schema['format']!r}; accepted: {', '.join(FORMATS)}"))
    for key in ("title", "description"):
        if key in schema and not isinstance(schema[key], str):
            issues.append(FieldIssue((key,), f"`{key}` must be a string"))
    if issues:
        return None, issues
    return Field(
        name=name,
        type=type_name,
        schema=schema,
        choices=choices,
        default=schema.get("default", MISSING),
        minimum=schema.get("minimum"),
        maximum=schema.get("maximum"),
        min_length=schema.get("minLength"),
        max_length=schema.get("maxLength"),
        min_items=schema.get("minItems"),
        max_items=schema.get("maxItems"),
        pattern=pattern,
        format=schema.get("format"),
        source=schema.get("source"),
        matcher=matcher,
    ), []


def _unfit_keys(type_name: str, schema: Mapping[str, Any], allow_source: bool) -> Iterator[FieldIssue]:
    allowed = KEYS_BY_TYPE[type_name]
    for key in schema:
        if key not in allowed:
            fitting = ", ".join(sorted(allowed - {"type"}))
            article = "an" if type_name[0] in "aeiou" else "a"
            yield FieldIssue((key,), f"`{key}` does not fit {article} {type_name} field; it takes: {fitting}")
    if "source" in schema:
        if not allow_source:
            yield FieldIssue(("source",), "`source` is for commands only; skills and partials of skills cannot use it")
        elif schema["source"] != WORKFLOW_PHASES:
            yield FieldIssue(("source",), f"has unknown source {schema['source']!r}; accepted: {WORKFLOW_PHASES}")
        elif "enum" in schema or "oneOf" in schema:
            yield FieldIssue(("source",), "`source` derives the choices; remove `enum`/`oneOf`")


def _choices(type_name: str, schema: Mapping[str, Any], phases: tuple[str, ...]) -> tuple[tuple | None, list[FieldIssue]]:
    if schema.get("source") == WORKFLOW_PHASES:
        if not phases:
            return None, [FieldIssue(("source",), "workflow is not configured: `source: workflow-phases` needs `workflow.phases` in guide.yaml")]
        return phases, []
    if type_name == "array":
        return _item_choices(schema.get("items"))
    if "enum" in schema and "oneOf" in schema:
        return None, [FieldIssue(("oneOf",), "declare the choices with `enum` or `oneOf`, not both")]
    if "oneOf" in schema:
        return _const_choices(schema["oneOf"], ("oneOf",))
    if "enum" not in schema:
        if "enumNames" in schema:
            return None, [FieldIssue(("enumNames",), "`enumNames` needs an `enum` of the same length")]
        return None, []
    values = schema["enum"]
    if not isinstance(values, list) or not values:
        return None, [FieldIssue(("enum",), "`enum` must be a non-empty list")]
    issues = [
        FieldIssue(("enum",), f"enum value {value!r} is not {TYPE_NAMES[type_name]}")
        for value in values
        if not is_type(type_name, value)
    ]
    if len(set(map(repr, values))) != len(values):
        issues.append(FieldIssue(("enum",), "`enum` lists a value twice"))
    names = schema.get("enumNames")
    if names is not None and (
        not isinstance(names, list) or len(names) != len(values) or not all(isinstance(n, str) for n in names)
    ):
        issues.append(FieldIssue(("enumNames",), "`enumNames` must be a list of strings as long as `enum`"))
    return tuple(values), issues


def _item_choices(items: Any) -> tuple[tuple | None, list[FieldIssue]]:
    accepted = "items takes {type: string, enum: [...]} or {anyOf: [{const, title}, ...]}"
    if not isinstance(items, Mapping):
        return None, [FieldIssue(("items",), f"a multi-select needs `items`; {accepted}")]
    if "anyOf" in items and set(items) <= {"anyOf"}:
        return _const_choices(items["anyOf"], ("items", "anyOf"))
    values = items.get("enum")
    if set(items) != {"type", "enum"} or items["type"] != "string" or not isinstance(values, list) or not values:
        return None, [FieldIssue(("items",), accepted)]
    if not all(isinstance(value, str) for value in values) or len(set(values)) != len(values):
        return None, [FieldIssue(("items", "enum"), "item choices must be distinct strings")]
    return tuple(values), []


def _const_choices(options: Any, keys: tuple[str, ...]) -> tuple[tuple | None, list[FieldIssue]]:
    message = f"`{keys[-1]}` must be a non-empty list of {{const: <string>, title: <string>}}"
    if not isinstance(options, list) or not options:
        return None, [FieldIssue(keys, message)]
    for option in options:
        if (
            not isinstance(option, Mapping)
            or set(option) - {"const", "title"}
            or not isinstance(option.get("const"), str)
            or not isinstance(option.get("title", ""), str)
        ):
            return None, [FieldIssue(keys, f"{message}; got {option!r}")]
    values = tuple(option["const"] for option in options)
    if len(set(values)) != len(values):
        return None, [FieldIssue(keys, f"`{keys[-1]}` lists a value twice")]
    return values, []


def _bound_issues(type_name: str, schema: Mapping[str, Any]) -> list[FieldIssue]:
    bound_type = "number" if type_name in ("integer", "number") else "count"
    pairs = {"number": ("minimum", "maximum"), "count": ("minLength", "maxLength")}
    low_key, high_key = ("minItems", "maxItems") if type_name == "array" else pairs[bound_type]
    issues = []
    for key in (low_key, high_key):
        if key not in schema:
            continue
        value = schema[key]
        if bound_type == "number" and not is_type("number", value):
            issues.append(FieldIssue((key,), f"`{key}` must be a number"))
        elif bound_type == "count" and (not is_type("integer", value) or value < 0):
            issues.append(FieldIssue((key,), f"`{key}` must be a whole number of at least 0"))
    if not issues and low_key in schema and high_key in schema and schema[low_key] > schema[high_key]:
        issues.append(FieldIssue((low_key,), f"`{low_key}` ({schema[low_key]}) is greater than `{high_key}` ({schema[high_key]})"))
    return issues


def _pattern(pattern: Any) -> tuple[Any, list[FieldIssue]]:
    if not isinstance(pattern, str) or not pattern:
        return None, [FieldIssue(("pattern",), "`pattern` must be a non-empty regular expression")]
    try:
        return compile_pattern(pattern), []
    except re2.error as error:
        reason = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
        message = f"`pattern` {pattern!r} is not a valid regular expression ({reason}); lookarounds and backreferences are not supported"
        return None, [FieldIssue(("pattern",), message)]
