"""Pure builders for enum-style elicitation field schemas (C11).

Each builder returns a new JSON-schema fragment, copies the sequences it is
given, never raises and adds no defaults or limits of its own. Options may be
the typed tuples below, mappings (`{"value": ..., "title": ...}`, or `"name"`
for the legacy form) or plain pairs; anything else is skipped.
"""

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple, TypeAlias, TypedDict

__all__ = [
    "ConstOption",
    "ElicitationEnumFieldSchema",
    "ElicitationEnumObjectSchema",
    "EnumObjectSchema",
    "EnumOption",
    "EnumOptionInput",
    "LegacyEnumOption",
    "LegacyEnumOptionInput",
    "LegacyEnumSchema",
    "TitledEnumSchema",
    "TitledItems",
    "TitledMultiEnumSchema",
    "UntitledEnumSchema",
    "UntitledItems",
    "UntitledMultiEnumSchema",
    "enum_schema",
    "legacy_enum",
    "titled_enum",
    "titled_multi_enum",
    "untitled_enum",
    "untitled_multi_enum",
]


class EnumOption(NamedTuple):
    """A choice with a value and a human-readable title."""

    value: str
    title: str


class LegacyEnumOption(NamedTuple):
    """A choice for the deprecated `enumNames` form: a value and its display name."""

    value: str
    name: str


EnumOptionInput: TypeAlias = EnumOption | Mapping[str, str] | tuple[str, str]
"""What a titled builder takes as one option: an `EnumOption`, a `{"value", "title"}` mapping or a (value, title) pair."""
LegacyEnumOptionInput: TypeAlias = LegacyEnumOption | Mapping[str, str] | tuple[str, str]
"""What `legacy_enum` takes as one option: a `LegacyEnumOption`, a `{"value", "name"}` mapping or a (value, name) pair."""


class ConstOption(TypedDict):
    """One titled choice as the schema holds it: `{"const": value, "title": title}`."""

    const: str
    title: str


class UntitledEnumSchema(TypedDict):
    """A single choice among plain values (`untitled_enum`)."""

    type: Literal["string"]
    enum: list[str]


class TitledEnumSchema(TypedDict):
    """A single choice with display titles (`titled_enum`)."""

    type: Literal["string"]
    oneOf: list[ConstOption]


class LegacyEnumSchema(TypedDict):
    """A single titled choice in the deprecated `enum` + `enumNames` form (`legacy_enum`)."""

    type: Literal["string"]
    enum: list[str]
    enumNames: list[str]


class UntitledItems(TypedDict):
    """The items of an untitled multi-select."""

    type: Literal["string"]
    enum: list[str]


class TitledItems(TypedDict):
    """The items of a titled multi-select."""

    anyOf: list[ConstOption]


class UntitledMultiEnumSchema(TypedDict):
    """A multi-select among plain values (`untitled_multi_enum`)."""

    type: Literal["array"]
    items: UntitledItems


class TitledMultiEnumSchema(TypedDict):
    """A multi-select with display titles (`titled_multi_enum`)."""

    type: Literal["array"]
    items: TitledItems


ElicitationEnumFieldSchema: TypeAlias = UntitledEnumSchema | TitledEnumSchema | LegacyEnumSchema | UntitledMultiEnumSchema | TitledMultiEnumSchema
"""Any field schema the builders make: the union of their five shapes."""


class ElicitationEnumObjectSchema(TypedDict):
    """A top-level object schema of enum fields (`enum_schema`)."""

    type: Literal["object"]
    properties: Mapping[str, ElicitationEnumFieldSchema]


EnumObjectSchema = ElicitationEnumObjectSchema
"""The former name of `ElicitationEnumObjectSchema`, kept for code that imports it."""


def enum_schema(fields: Mapping[str, ElicitationEnumFieldSchema]) -> ElicitationEnumObjectSchema:
    """Wrap field schemas into a top-level object schema (the mapping itself is used)."""
    return {"type": "object", "properties": fields}


def untitled_enum(values: Iterable[str]) -> UntitledEnumSchema:
    """A single choice among plain string values."""
    return {"type": "string", "enum": _copied(values)}


def titled_enum(options: Iterable[EnumOptionInput]) -> TitledEnumSchema:
    """A single choice whose values carry display titles (`oneOf` of `const`)."""
    return {"type": "string", "oneOf": _const_options(options)}


def legacy_enum(options: Iterable[LegacyEnumOptionInput]) -> LegacyEnumSchema:
    """A single titled choice in the deprecated `enum` + `enumNames` form."""
    pairs = _pairs(options, "name")
    return {"type": "string", "enum": [value for value, _ in pairs], "enumNames": [name for _, name in pairs]}


def untitled_multi_enum(values: Iterable[str]) -> UntitledMultiEnumSchema:
    """A multi-select among plain string values."""
    return {"type": "array", "items": {"type": "string", "enum": _copied(values)}}


def titled_multi_enum(options: Iterable[EnumOptionInput]) -> TitledMultiEnumSchema:
    """A multi-select whose values carry display titles (`anyOf` of `const`)."""
    return {"type": "array", "items": {"anyOf": _const_options(options)}}


def _const_options(options: Iterable[EnumOptionInput]) -> list[ConstOption]:
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
