"""Live sources' reads kept while nothing they read changed, so a form with `git-branches` starts git only after the refs change.

What a `git-*` or `files:` source finds is kept with the stamps it was read
under (`guide.project.stamps`); the next read of the same source in the same
project uses it while every stamp is unchanged, and reads again otherwise, so
each read still offers the choices as they are then (C5). Checking costs a few
`stat` calls (a git source: `.git`, `HEAD`, `packed-refs` and the ref folders;
a glob: the folders it walked) where reading cost a process or a walk.

One server keeps at most `MAX_KEPT` reads holding `MAX_CHARACTERS` in all, the
least recently used forgotten first; a read that failed is never kept.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence

from guide.project.stamps import Stamps

MAX_KEPT = 64
"""The most source reads one server keeps (one per source, project and kind of read)."""
MAX_CHARACTERS = 4 * 1024 * 1024
"""The most characters the kept reads hold together, names and stamped paths counted."""

Found = Sequence[str]
Read = Callable[[], tuple[Found, Stamps | None]]


class KeptReads:
    """Source reads by key (source, project, ...), each with its stamps; safe between the worker threads that read sources."""

    def __init__(self, count: int = MAX_KEPT, characters: int = MAX_CHARACTERS):
        self.count = count
        self.characters = characters
        self._kept: OrderedDict[Hashable, tuple[Found, Stamps, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def found(self, key: Hashable, read: Read) -> Found:
        """What the read under `key` found: kept while its stamps hold, else read now (and kept, if its stamps have settled)."""
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and kept[1].fresh():
            with self._lock:
                if key in self._kept:
                    self._kept.move_to_end(key)
            return kept[0]
        found, stamps = read()
        if stamps is not None and stamps.settled():
            self._keep(key, tuple(found), stamps)
        return found

    def recall(self, key: Hashable, most_paths: int) -> Found | None:
        """What the read under `key` found, if it is kept with at most `most_paths` stamps and every one is unchanged; else None."""
        with self._lock:
            kept = self._kept.get(key)
        if kept is None or len(kept[1].paths) > most_paths or not kept[1].fresh():
            return None
        return kept[0]

    def __len__(self) -> int:
        return len(self._kept)

    def _keep(self, key: Hashable, found: Found, stamps: Stamps) -> None:
        size = sum(len(name) + 1 for name in found) + sum(len(path) + 48 for path, _, _ in stamps.paths)
        with self._lock:
            if key in self._kept:
                self._size -= self._kept.pop(key)[2]
            if size > self.characters:
                return
            while self._kept and (len(self._kept) >= self.count or self._size + size > self.characters):
                self._size -= self._kept.popitem(last=False)[1][2]
            self._kept[key] = (found, stamps, size)
            self._size += size
