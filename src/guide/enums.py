"""Pure builders for enum-style elicitation field schemas (C11).

Each builder returns a new JSON-schema fragment, copies the sequences it is
given, never raises and adds no defaults or limits of its own. Options may be
the typed tuples below, mappings (`{"value": ..., "title": ...}`, or `"name"`
for the legacy form) or plain pairs; anything else is skipped.
"""

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple, TypedDict


class EnumOption(NamedTuple):
    """A choice with a value and a human-readable title."""

    value: str
    title: str


class LegacyEnumOption(NamedTuple):
    """A choice for the deprecated `enumNames` form: a value and its display name."""

    value: str
    name: str


class ConstOption(TypedDict):
    const: str
    title: str


class UntitledEnumSchema(TypedDict):
    type: Literal["string"]
    enum: list[str]


class TitledEnumSchema(TypedDict):
    type: Literal["string"]
    oneOf: list[ConstOption]


class LegacyEnumSchema(TypedDict):
    type: Literal["string"]
    enum: list[str]
    enumNames: list[str]


class UntitledItems(TypedDict):
    type: Literal["string"]
    enum: list[str]


class TitledItems(TypedDict):
    anyOf: list[ConstOption]


class UntitledMultiEnumSchema(TypedDict):
    type: Literal["array"]
    items: UntitledItems


class TitledMultiEnumSchema(TypedDict):
    type: Literal["array"]
    items: TitledItems


class EnumObjectSchema(TypedDict):
    type: Literal["object"]
    properties: Mapping[str, Any]


def enum_schema(fields: Mapping[str, Any]) -> EnumObjectSchema:
    """Wrap field schemas into a top-level object schema (the mapping itself is used)."""
    return {"type": "object", "properties": fields}


def untitled_enum(values: Iterable[str]) -> UntitledEnumSchema:
    """A single choice among plain string values."""
    return {"type": "string", "enum": _copied(values)}


def titled_enum(options: Iterable[EnumOption]) -> TitledEnumSchema:
    """A single choice whose values carry display titles (`oneOf` of `const`)."""
    return {"type": "string", "oneOf": _const_options(options)}


def legacy_enum(options: Iterable[LegacyEnumOption]) -> LegacyEnumSchema:
    """A single titled choice in the deprecated `enum` + `enumNames` form."""
    pairs = _pairs(options, "name")
    return {"type": "string", "enum": [value for value, _ in pairs], "enumNames": [name for _, name in pairs]}


def untitled_multi_enum(values: Iterable[str]) -> UntitledMultiEnumSchema:
    """A multi-select among plain string values."""
    return {"type": "array", "items": {"type": "string", "enum": _copied(values)}}


def titled_multi_enum(options: Iterable[EnumOption]) -> TitledMultiEnumSchema:
    """A multi-select whose values carry display titles (`anyOf` of `const`)."""
    return {"type": "array", "items": {"anyOf": _const_options(options)}}


def _const_options(options: Iterable[EnumOption]) -> list[ConstOption]:
    return [{"const": value, "title": title} for value, title in _pairs(options, "title")]


def _copied(values: Iterable[str]) -> list[str]:
    return list(values) if isinstance(values, Iterable) and not isinstance(values, str | bytes | Mapping) else []


def _pairs(options: Iterable[Any], label: str) -> list[tuple[Any, Any]]:
    """Each option as (value, label): typed tuples and pairs by position, mappings by key; anything else skipped."""
    pairs = []
    for option in options if isinstance(options, Iterable) else ():
        if isinstance(option, Mapping):
            if "value" in option and label in option:
                pairs.append((option["value"], option[label]))
        elif isinstance(option, tuple | list) and len(option) == 2:
            pairs.append((option[0], option[1]))
    return pairs
