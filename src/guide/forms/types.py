"""The field types of a form (C5, C6): one object per type, and every other module asks it.

A type knows its schema keys, how it reads keyword text and JSON answers, its
choice shapes, the constraint keywords it takes (`guide.forms.keywords`) and the
words it offers where it has no choices. Adding a field type is one entry in `TYPES`.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

from guide.text import quoted

COMMON_KEYS = frozenset({"type", "title", "description", "default"})
MAX_DIGITS = 4000
"""Number text longer than this is refused before it is read (Python caps integer text near 4300 digits)."""

_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


class Invalid(ValueError):
    """A value does not fit its field; the message says what is accepted."""


def is_unresolved(value: Any) -> bool:
    """Omitted, `null` or a blank string: the only values that count as missing (C6)."""
    return value is None or (isinstance(value, str) and not value.strip())


class FieldType:
    """What Guide knows of one field type; subclasses fill in the parts that differ."""

    name = ""
    noun = ""
    keywords: tuple[str, ...] = ()
    """Constraint keywords the type takes, in the order values are checked against them."""
    choice_keys: frozenset[str] = frozenset({"enum"})
    words: tuple[str, ...] = ()
    """Every value the type can hold, as text, when that list is short (offered where a field has no choices)."""
    many = False
    """Whether a value is a list of choices rather than one value."""
    terminal_words: Mapping[str, str] = {}
    """Short answers a person may type in a terminal form, and the text each stands for."""
    terminal_hint = ""
    """What a terminal prompt shows for a field of this type that has no choices (a `format` says its own)."""
    flag_takes_value = True
    """Whether a prompt flag naming a field of this type takes the next token as its value (`--severity sev2`)."""

    @property
    def keys(self) -> frozenset[str]:
        """Every schema key a field of this type may have."""
        return COMMON_KEYS | self.choice_keys | frozenset(self.keywords)

    def __repr__(self) -> str:
        return self.name

    def is_json(self, value: Any) -> bool:
        """Whether a JSON value has this type."""
        raise NotImplementedError

    def from_json(self, value: Any) -> Any:
        """A client's JSON answer in normal form, or `Invalid`; unresolved answers are None."""
        if is_unresolved(value):
            return None
        if not self.is_json(value):
            raise Invalid(f"{quoted(value)} is not {self.noun}")
        return value

    def from_text(self, texts: Sequence[str]) -> Any:
        """Keyword text (one entry per occurrence) in normal form, or `Invalid`; blank text is None."""
        if len(texts) != 1:
            raise Invalid(f"was given {len(texts)} times; it takes one value")
        text = texts[0]
        return None if is_unresolved(text) else self._from_one_text(text.strip())

    def _from_one_text(self, text: str) -> Any:
        raise NotImplementedError


class StringType(FieldType):
    """Text, with optional length bounds, a pattern, a format and choices in three shapes."""

    name, noun = "string", "a string"
    keywords = ("minLength", "maxLength", "pattern", "format")
    choice_keys = frozenset({"enum", "oneOf", "enumNames", "source"})
    def is_json(self, value: Any) -> bool:
        return isinstance(value, str)

    def from_text(self, texts: Sequence[str]) -> Any:
        # A string keeps its text as given: "true" stays the text "true".
        if len(texts) != 1:
            raise Invalid(f"was given {len(texts)} times; it takes one value")
        return texts[0]


class NumberType(FieldType):
    """A finite number; answers and keywords normalise to `float`."""

    name, noun = "number", "a number"
    keywords = ("minimum", "maximum")

    def is_json(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, int):
            return abs(value) <= 1.7e308  # a larger integer has no finite float
        return value == value and abs(value) != float("inf")

    def from_json(self, value: Any) -> Any:
        found = super().from_json(value)
        return None if found is None else self._normal(found)

    def _from_one_text(self, text: str) -> Any:
        if len(text) > MAX_DIGITS or not _NUMBER_TEXT.fullmatch(text):
            raise Invalid(f"{quoted(text)} is not {self.noun}")
        number = float(text)
        if not self.is_json(number):
            raise Invalid(f"{quoted(text)} is not {self.noun}")
        return self._from_number_text(text, number)

    def _from_number_text(self, text: str, number: float) -> Any:
        return number

    def _normal(self, value: Any) -> Any:
        return float(value)


class IntegerType(NumberType):
    """A whole number (`3.0` is one, `3.5` and `"3"` are not); normalises to `int`."""

    name, noun = "integer", "an integer"

    def is_json(self, value: Any) -> bool:
        # Bounded like a number: a longer integer could not even be written out as text.
        return super().is_json(value) and (isinstance(value, int) or value.is_integer())

    def _from_number_text(self, text: str, number: float) -> Any:
        return int(text) if text.lstrip("+-").isdigit() else int(number)

    def _normal(self, value: Any) -> Any:
        return int(value)


class BooleanType(FieldType):
    """`true` or `false` (any case as keyword text)."""

    name, noun = "boolean", "true or false"
    choice_keys = frozenset()
    words = ("true", "false")
    terminal_words = {"y": "true", "yes": "true", "n": "false", "no": "false"}
    terminal_hint = "y/n"
    flag_takes_value = False  # a bare `--dry_run` is true

    def is_json(self, value: Any) -> bool:
        return isinstance(value, bool)

    def _from_one_text(self, text: str) -> Any:
        if text.lower() not in self.words:
            raise Invalid(f"{quoted(text)} is not true or false")
        return text.lower() == "true"


class ArrayType(FieldType):
    """A multi-select: a list of distinct string choices."""

    name, noun = "array", "a list of strings"
    keywords = ("minItems", "maxItems")
    choice_keys = frozenset({"items"})
    many = True

    def is_json(self, value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)

    def from_json(self, value: Any) -> Any:
        found = super().from_json(value)
        return None if found is None else list(found)

    def from_text(self, texts: Sequence[str]) -> Any:
        # Repeated keywords and comma-separated values both add choices.
        parts = [part.strip() for text in texts for part in text.split(",")]
        if all(is_unresolved(part) for part in parts):
            return None
        return [part for part in parts if part]


TYPES: Mapping[str, FieldType] = {kind.name: kind for kind in (StringType(), IntegerType(), NumberType(), BooleanType(), ArrayType())}
"""Every field type, by the name a schema gives in `type`."""
