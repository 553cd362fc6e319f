"""Normalise and check field values (C6).

Text from a URI or prompt is read against the declared field only; JSON answers
from a client must already have the declared type. Every value is then checked
against the field's choices and constraints. Problems are returned, not raised.
"""

import datetime
import re
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from guide.forms.fields import TYPE_NAMES, Field, is_type

_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)*")


class Invalid(ValueError):
    """A value does not fit its field; the message says what is accepted."""


def is_unresolved(value: Any) -> bool:
    """Omitted, `null` or a blank string: the only values that count as missing."""
    return value is None or (isinstance(value, str) and not value.strip())


def same_value(value: Any, expected: Any) -> bool:
    """Equal and of the same kind: `true` never equals `1`, nor the text "1" the number 1."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    if isinstance(value, str) or isinstance(expected, str):
        return isinstance(value, str) and isinstance(expected, str) and value == expected
    return value == expected


def normalise_text(field: Field, texts: Sequence[str]) -> Any:
    """Read keyword text (each occurrence of the keyword) as the field's type, or raise `Invalid`."""
    if field.type == "array":
        parts = [part.strip() for text in texts for part in text.split(",")]
        if all(is_unresolved(part) for part in parts):
            return None
        return [part for part in parts if part]
    if len(texts) != 1:
        raise Invalid(f"was given {len(texts)} times; it takes one value")
    text = texts[0]
    if is_unresolved(text) or field.type == "string":
        return text if field.type == "string" else None
    text = text.strip()
    if field.type == "boolean":
        if text.lower() not in ("true", "false"):
            raise Invalid(f"{text!r} is not true or false")
        return text.lower() == "true"
    if not _NUMBER_TEXT.fullmatch(text):
        raise Invalid(f"{text!r} is not {TYPE_NAMES[field.type]}")
    number = float(text)
    if not is_type(field.type, number):
        raise Invalid(f"{text!r} is not {TYPE_NAMES[field.type]}")
    if field.type == "integer":
        return int(text) if text.lstrip("+-").isdigit() else int(number)
    return number


def normalise_answer(field: Field, value: Any) -> Any:
    """Check a client's JSON value has the declared type and return its normal form, or raise `Invalid`."""
    if is_unresolved(value):
        return None
    if field.type == "array":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise Invalid(f"{value!r} is not a list of strings")
        return list(value)
    if not is_type(field.type, value):
        raise Invalid(f"{value!r} is not {TYPE_NAMES[field.type]}")
    if field.type == "integer":
        return int(value)
    if field.type == "number":
        return float(value)
    return value


def problems(field: Field, value: Any, choices: Sequence[Any] | None = None) -> list[str]:
    """Every constraint of the field that a normalised value breaks (empty when it fits)."""
    return list(_problems(field, value, field.choices if choices is None else choices))


def accepted(field: Field, choices: Sequence[Any] | None = None) -> str:
    """Say in a few words which values the field accepts."""
    choices = field.choices if choices is None else choices
    if choices is not None:
        listed = ", ".join(_show(choice) for choice in choices)
        return f"{'a list of' if field.type == 'array' else 'one of'}: {listed}"
    parts = [TYPE_NAMES[field.type]]
    if field.format:
        parts.append(f"in {field.format} format")
    if field.minimum is not None:
        parts.append(f"at least {_show(field.minimum)}")
    if field.maximum is not None:
        parts.append(f"at most {_show(field.maximum)}")
    if field.min_length is not None:
        parts.append(f"of at least {field.min_length} characters")
    if field.max_length is not None:
        parts.append(f"of at most {field.max_length} characters")
    if field.pattern is not None:
        parts.append(f"matching {field.pattern}")
    return " ".join(parts)


def _problems(field: Field, value: Any, choices: Sequence[Any] | None) -> Iterator[str]:
    if field.type == "array":
        yield from _item_problems(field, value, choices)
        return
    if choices is not None and value not in choices:
        yield f"{_show(value)} is not one of the choices"
        return
    if field.minimum is not None and value < field.minimum:
        yield f"{_show(value)} is less than the minimum {_show(field.minimum)}"
    if field.maximum is not None and value > field.maximum:
        yield f"{_show(value)} is greater than the maximum {_show(field.maximum)}"
    if field.type != "string":
        return
    if field.min_length is not None and len(value) < field.min_length:
        yield f"{value!r} is shorter than {field.min_length} characters"
    if field.max_length is not None and len(value) > field.max_length:
        yield f"{value!r} is longer than {field.max_length} characters"
    if field.matcher is not None and field.matcher.fullmatch(value) is None:
        yield f"{value!r} does not match the pattern"
    if field.format and not _FORMAT_CHECKS[field.format](value):
        yield f"{value!r} is not a valid {field.format}"


def _item_problems(field: Field, value: list[str], choices: Sequence[Any] | None) -> Iterator[str]:
    unknown = [item for item in value if choices is not None and item not in choices]
    if unknown:
        yield f"{', '.join(map(_show, unknown))} not among the choices"
    if len(set(value)) != len(value):
        yield "a choice is selected twice"
    if field.min_items is not None and len(value) < field.min_items:
        yield f"selects {len(value)}; at least {field.min_items} required"
    if field.max_items is not None and len(value) > field.max_items:
        yield f"selects {len(value)}; at most {field.max_items} allowed"


def _is_uri(text: str) -> bool:
    parts = urlsplit(text)
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme)) and bool(parts.netloc or parts.path) and " " not in text


def _is_date(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", text):
        return False
    try:
        datetime.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_FORMAT_CHECKS = {
    "email": lambda text: _EMAIL.fullmatch(text) is not None,
    "uri": _is_uri,
    "date": _is_date,
    "date-time": _is_date_time,
}


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
