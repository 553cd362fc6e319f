"""Encode the values YAML's safe loader produces as plain JSON data, and back, losslessly.

JSON holds strings, booleans, null, lists and string-keyed mappings as they are
(floats too, NaN and infinities included, as Python's `json` writes them). The
other safe-loader values become one-key-plus-value objects tagged with the
reserved key `!`: dates, datetimes, binary, sets, the (key, value) tuples of
`!!omap`/`!!pairs`, and mappings whose keys are not all strings or use `!`.
Anything else, a self-containing value (`&a [*a]`), or a value whose alias
expansion grows past a bound (`billion laughs`) raises `Unencodable`: such a
file is simply parsed again next time.
"""

import base64
import binascii
import datetime
import sys
from collections.abc import Callable
from typing import Any

TAG = "!"
INTERNED_LENGTH = 40  # as in frontmatter: short strings such as `type` recur in every file


class Unencodable(ValueError):
    """The value cannot be stored as JSON without losing what it is."""


def encode(value: Any, limit: int) -> Any:
    """`value` as JSON-ready data; raise `Unencodable` past `limit` nodes, on a cycle or an unknown type."""
    budget = [limit]
    try:
        return _encode(value, budget, set())
    except RecursionError:
        raise Unencodable("nested too deeply") from None


def _encode(value: Any, budget: list[int], open_ids: set[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise Unencodable("too many values (alias expansion?)")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    kind = type(value)
    if kind is datetime.datetime:
        return {TAG: "datetime", "v": value.isoformat()}
    if kind is datetime.date:
        return {TAG: "date", "v": value.isoformat()}
    if kind is bytes:
        return {TAG: "binary", "v": base64.b64encode(value).decode("ascii")}
    if kind not in (list, dict, set, tuple):
        raise Unencodable(f"no encoding for {kind.__name__}")
    if id(value) in open_ids:
        raise Unencodable("value contains itself")
    open_ids.add(id(value))
    try:
        return _encode_container(value, budget, open_ids)
    finally:
        open_ids.discard(id(value))


def _encode_container(value: Any, budget: list[int], open_ids: set[int]) -> Any:
    kind = type(value)
    if kind is list:
        return [_encode(item, budget, open_ids) for item in value]
    if kind is tuple:
        return {TAG: "tuple", "v": [_encode(item, budget, open_ids) for item in value]}
    if kind is set:
        return {TAG: "set", "v": [_encode(item, budget, open_ids) for item in value]}
    if all(type(key) is str and key != TAG for key in value):
        return {key: _encode(item, budget, open_ids) for key, item in value.items()}
    return {TAG: "map", "v": [[_encode(key, budget, open_ids), _encode(item, budget, open_ids)] for key, item in value.items()]}


def decode(data: Any) -> Any:
    """The value `encode` was given; raise `ValueError` on data it could not have written."""
    try:
        return _decode(data)
    except (KeyError, TypeError, IndexError, RecursionError, binascii.Error) as error:
        raise ValueError(f"not encoded YAML data: {error}") from None


def _decode(data: Any) -> Any:
    if type(data) is str:
        return sys.intern(data) if len(data) <= INTERNED_LENGTH else data
    if type(data) is list:
        return [_decode(item) for item in data]
    if type(data) is not dict:
        return data
    if TAG not in data:
        return {_decode(key): _decode(item) for key, item in data.items()}
    if len(data) != 2:
        raise ValueError("a tagged value has one tag and one value")
    make = _TAGGED.get(data[TAG])
    if make is None:
        raise ValueError(f"unknown tag {data[TAG]!r}")
    return make(data["v"])


def _pairs(items: list) -> dict:
    return {_decode(key): _decode(item) for key, item in items}


_TAGGED: dict[str, Callable[[Any], Any]] = {
    "datetime": datetime.datetime.fromisoformat,
    "date": datetime.date.fromisoformat,
    "binary": lambda text: base64.b64decode(text.encode("ascii"), validate=True),
    "tuple": lambda items: tuple(_decode(item) for item in items),
    "set": lambda items: {_decode(item) for item in items},
    "map": _pairs,
}
