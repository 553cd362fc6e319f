"""A memo bounded by how many values it keeps and by how many characters they hold together.

What a build keeps of its answers (rendered texts, resolved reads) depends on
what clients ask: a bound on the count alone let 1,024 renders of a megabyte
each stay. A `Memo` forgets its oldest values once either bound is passed, and
never keeps a value larger than its whole size bound.
"""

import dataclasses
import threading
from collections.abc import Hashable, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")
OBJECT_WEIGHT = 16
"""Characters an object counts as when it holds no text Guide can see (a number, a build)."""
WEIGH_DEPTH = 4
"""How deeply nested values are looked into for their text: deep enough for a key of tuples or a parsed file."""


class Memo(Generic[T]):
    """Values by key, at most `count` of them and `characters` in all (keys included); the oldest goes first. Safe between threads."""

    def __init__(self, count: int, characters: int):
        self.count = count
        self.characters = characters
        self.size = 0
        """The characters kept now."""
        self._values: dict[Hashable, tuple[T, int]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> T | Any:
        """The value kept under `key`, else `default`."""
        found = self._values.get(key)
        return default if found is None else found[0]

    def keep(self, key: Hashable, value: T) -> T:
        """Keep `value` under `key` unless a value is kept there already, and return the kept one.

        Older values are forgotten to stay within both bounds; a value larger than
        the whole bound is returned without being kept.
        """
        size = weigh(key) + weigh(value)
        with self._lock:
            found = self._values.get(key)
            if found is not None:
                return found[0]
            if size > self.characters:
                return value
            while self._values and (len(self._values) >= self.count or self.size + size > self.characters):
                _, dropped = self._values.pop(next(iter(self._values)))
                self.size -= dropped
            self._values[key] = (value, size)
            self.size += size
            return value

    def __len__(self) -> int:
        return len(self._values)


def weigh(value: Any, depth: int = WEIGH_DEPTH) -> int:
    """About how many characters a value holds: its text, and the text of the values inside it (not looked into past `depth`)."""
    if isinstance(value, (str, bytes)):
        return len(value) + 1
    if depth <= 0:
        return OBJECT_WEIGHT
    if isinstance(value, Mapping):
        return OBJECT_WEIGHT + sum(weigh(key, depth - 1) + weigh(item, depth - 1) for key, item in value.items())
    if isinstance(value, (tuple, list, set, frozenset)):
        return OBJECT_WEIGHT + sum(weigh(item, depth - 1) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return OBJECT_WEIGHT + sum(weigh(getattr(value, field.name), depth - 1) for field in dataclasses.fields(value))
    return OBJECT_WEIGHT
