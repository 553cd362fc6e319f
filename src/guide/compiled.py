"""Guide's own cache of the templates the Mustache engine has tokenized, bounded by size.

mstache keeps every template it tokenizes in a process-wide cache of 1,024
entries whatever their size, keyed by the whole template text: a few large
templates (an 800 KB partial indented 500 spaces is 200 MB) would stay there for
the life of the server. Guide hands mstache this cache instead, on every call,
so what stays is bounded by `MAX_WEIGHT` bytes: the least recently used
templates go first, and a template weighing more than a quarter of the bound
is never kept.
"""

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

MAX_WEIGHT = 32 * 1024 * 1024
"""The most bytes the kept templates may weigh together: their text and their tokens (32 MiB)."""
TOKEN_WEIGHT = 160
"""Bytes one token costs beside the text it holds (a tuple of six and two bytes objects)."""


class CompiledTemplates:
    """Tokenized templates by mstache's cache key, the least recently used forgotten first once they weigh `max_weight` bytes.

    It has the two methods mstache's `cache` parameter needs (`get`, item
    assignment), and is safe to share between threads.
    """

    def __init__(self, max_weight: int = MAX_WEIGHT):
        self.max_weight = max_weight
        self.weight = 0
        self._kept: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The tokenized template under `key`, else `default`."""
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return default
            self._kept.move_to_end(key)
            return found[0]

    def __setitem__(self, key: Hashable, value: Any) -> None:
        weight = weigh(key, value)
        if weight > self.max_weight // 4:
            return
        with self._lock:
            old = self._kept.pop(key, None)
            self.weight += weight - (old[1] if old is not None else 0)
            self._kept[key] = (value, weight)
            while self.weight > self.max_weight:
                _, (_, dropped) = self._kept.popitem(last=False)
                self.weight -= dropped

    def __len__(self) -> int:
        return len(self._kept)


def weigh(key: Hashable, value: Any) -> int:
    """About how many bytes a tokenized template holds: the template text in its key and the text of each token."""
    template = key[0] if isinstance(key, tuple) and key and isinstance(key[0], bytes) else b""
    try:
        _, tokens, _ = value
        held = sum(len(token[3]) + len(token[4]) + TOKEN_WEIGHT for token in tokens)
    except (TypeError, ValueError, IndexError):
        held = TOKEN_WEIGHT
    return len(template) + held


TEMPLATES = CompiledTemplates()
"""The one cache every render hands mstache (never mstache's own `default_cache`)."""
