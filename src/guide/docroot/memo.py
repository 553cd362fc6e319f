"""Memos bounded by how many values they keep and by how many characters they hold together, declared by their users.

What a build keeps of its answers (rendered texts, resolved reads) depends on
what clients ask: a bound on the count alone let 1,024 renders of a megabyte
each stay. A `Memo` forgets its oldest values once either bound is passed, and
never keeps a value larger than its whole size bound.

A memo is declared beside the code that uses it, as a `Kept` with its bounds
(`RENDERS = Kept("renders", 1024, 8 * MEGA)`); every build keeps one memo of
each declaration it is asked about (`Memos`), so the build names none of them.
"""

import dataclasses
import enum
import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class _Unbuilt(enum.Enum):
    UNBUILT = "UNBUILT"


UNBUILT = _Unbuilt.UNBUILT
"""What a question answered only from what is built returns when the value was not made yet (a memo, a build's value, the phase)."""
Unbuilt = Literal[_Unbuilt.UNBUILT]
OBJECT_WEIGHT = 16
"""Characters an object counts as when it holds no text Guide can see (a number, a build)."""
WEIGH_DEPTH = 4
"""How deeply nested values are looked into for their text: deep enough for a key of tuples or a parsed file."""


MEGA = 1024 * 1024


@dataclasses.dataclass(frozen=True, eq=False)
class Kept(Generic[T_co]):
    """A memo's declaration: what it keeps (for the reader), at most `count` values and `characters` characters, keys included."""

    what: str
    count: int
    characters: int
    weigh: Callable[[Any], int] | None = None
    """How many characters a value counts for, when `weigh` would look deeper than needed (a file's text with its parse)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Once(Generic[T_co]):
    """A value a build makes once for its snapshot (a listing, an entrypoint's checks), declared beside its user.

    One value in all, or one per key (`Built.value(ONCE, make, key)`): a build
    keeps what the docroot holds, so these are bounded by the docroot, not by a count.
    """

    what: str


class Memo(Generic[T]):
    """Values by key, at most `count` of them and `characters` in all (keys included); the oldest goes first. Safe between threads."""

    def __init__(self, count: int, characters: int, weigh_value: Callable[[Any], int] | None = None):
        self.count = count
        self.characters = characters
        self._weigh = weigh_value or weigh
        self.size = 0
        """The characters kept now."""
        self._values: dict[Hashable, T] = {}
        self._sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()
        self.get: Callable[..., T | Any] = self._values.get
        """The value kept under a key, else the default given (a plain lookup: asked on every read)."""

    def keep(self, key: Hashable, value: T) -> T:
        """Keep `value` under `key` unless a value is kept there already, and return the kept one.

        Older values are forgotten to stay within both bounds; a value larger than
        the whole bound is returned without being kept.
        """
        size = weigh(key) + self._weigh(value)
        with self._lock:
            if key in self._values:
                return self._values[key]
            if size > self.characters:
                return value
            while self._values and (len(self._values) >= self.count or self.size + size > self.characters):
                oldest = next(iter(self._values))
                del self._values[oldest]
                self.size -= self._sizes.pop(oldest)
            self._values[key] = value
            self._sizes[key] = size
            self.size += size
            return value

    def carry(self, other: "Memo[T]", still: Callable[[Hashable], bool]) -> None:
        """Keep what `other` keeps under the keys `still` accepts, oldest first (a new build takes over what still holds)."""
        with other._lock:
            items = list(other._values.items())
        for key, value in items:
            if still(key):
                self.keep(key, value)

    def __len__(self) -> int:
        return len(self._values)


class Memos:
    """One build's memos, one per declaration (`Kept`), each made when first used. Safe between threads."""

    def __init__(self) -> None:
        self._memos: dict[Kept[Any], Memo[Any]] = {}
        self._lock = threading.Lock()

    def of(self, kept: Kept[T]) -> Memo[T]:
        """The memo of `kept` (empty when first asked for)."""
        found = self._memos.get(kept)
        if found is None:
            with self._lock:
                found = self._memos.setdefault(kept, Memo(kept.count, kept.characters, kept.weigh))
        return found

    def remember(self, kept: Kept[T], key: Hashable, value: T) -> T:
        """Keep `value` in the memo of `kept` (within its bounds), and return the kept one."""
        return self.of(kept).keep(key, value)

    def recall(self, kept: Kept[T], key: Hashable) -> "T | Unbuilt":
        """A value kept with `remember`, else `UNBUILT`."""
        found = self._memos.get(kept)
        return found.get(key, UNBUILT) if found is not None else UNBUILT


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
