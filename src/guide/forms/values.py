"""Normalise and check field values (C6).

Text from a URI or prompt is read against the declared field only; JSON answers
from a client must already have the declared type. Every value is then checked
against the field's choices and constraint keywords. Problems are returned, not raised.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from guide.forms.fields import Field
from guide.forms.keywords import KEYWORDS, describe_bounds
from guide.forms.types import Invalid, is_unresolved
from guide.text import clip, show

__all__ = ["Invalid", "accepted", "is_unresolved", "normalise_answer", "normalise_text", "problems", "same_value", "text_length", "when_status"]


def same_value(value: Any, expected: Any) -> bool:
    """Equal and of the same kind: `true` never equals `1`, nor the text "1" the number 1."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    if isinstance(value, str) or isinstance(expected, str):
        return isinstance(value, str) and isinstance(expected, str) and value == expected
    return value == expected


def when_status(when: Mapping[str, Sequence[Any]], known: Mapping[str, Any]) -> bool | None:
    """Whether a form's `when` holds for the known values: True, False, or None while undecided (C7.3).

    It holds when every field it names is known and equals one of its values (an empty `when` always holds); it fails when a
    known value is not listed; otherwise it is undecided.
    """
    decided = True
    for name, expected in when.items():
        if name not in known:
            decided = False
        elif not any(same_value(known[name], value) for value in expected):
            return False
    return True if decided else None


def text_length(values: Mapping[str, Any]) -> int:
    """About how many characters accepted values hold as text: a string its length, a list its items' and one each, anything else one.

    Accepted values are normalised (text, numbers, booleans, lists of text), so
    one level of lists is all there is to measure.
    """
    total = 0
    for value in values.values():
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, list):
            total += len(value) + sum(len(item) if isinstance(item, str) else 1 for item in value)
        else:
            total += 1
    return total


def normalise_text(field: Field, texts: Sequence[str]) -> Any:
    """Read keyword text (each occurrence of the keyword) as the field's type, or raise `Invalid`."""
    return field.type.from_text(texts)


def normalise_answer(field: Field, value: Any) -> Any:
    """Check a client's JSON value has the declared type and return its normal form, or raise `Invalid`."""
    return field.type.from_json(value)


def problems(field: Field, value: Any, choices: Sequence[Any] | None = None) -> list[str]:
    """Every constraint of the field that a normalised value breaks (empty when it fits)."""
    return list(_problems(field, value, field.choices if choices is None else choices))


def accepted(field: Field, choices: Sequence[Any] | None = None) -> str:
    """Say in a few words which values the field accepts."""
    choices = field.choices if choices is None else choices
    if choices is not None:
        listed = ", ".join(show(choice) for choice in choices)
        return f"{'a list of' if field.type.many else 'one of'}: {listed}"
    return " ".join(part for part in (field.type.noun, describe_bounds(field.bounds)) if part)


def _problems(field: Field, value: Any, choices: Sequence[Any] | None) -> Iterator[str]:
    if field.type.many:
        unknown = [item for item in value if choices is not None and item not in choices]
        if unknown:
            yield f"{clip(', '.join(map(show, unknown)))} not among the choices"
        if len(set(value)) != len(value):
            yield "a choice is selected twice"
    elif choices is not None and value not in choices:
        yield f"{clip(show(value))} is not one of the choices"
        return
    for key in field.type.keywords:
        if key in field.bounds:
            problem = KEYWORDS[key].check(field.bounds[key], value)
            if problem:
                yield problem
