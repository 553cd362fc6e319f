"""Caches whose lifetime is one docroot snapshot: they empty themselves when the snapshot is replaced."""

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from guide.docroot.ready import slow_work

T = TypeVar("T")


class PerSnapshot(Generic[T]):
    """A bounded memo of values derived from one snapshot; asking with a newer snapshot starts afresh."""

    def __init__(self, size: int = 1024):
        self.size = size
        self._owner: object | None = None
        self._values: dict[Hashable, T] = {}
        self._lock = threading.Lock()

    def get(self, snapshot: object, key: Hashable, make: Callable[[], T]) -> T:
        """The value under `key` for this snapshot, made (and kept) if missing."""
        with self._lock:
            if self._owner is not snapshot:
                self._owner, self._values = snapshot, {}
            values = self._values
            if key in values:
                return values[key]
        slow_work()
        value = make()
        with self._lock:
            if values is self._values:
                if len(values) >= self.size:
                    values.pop(next(iter(values)))
                values[key] = value
        return value
