"""Python's cyclic garbage collector, paused while Guide builds in bulk.

A listing, a catalog or a check of a large docroot allocates hundreds of
thousands of objects that live as long as the snapshot, and almost none of
them take part in a cycle. While they pile up, Python walks its oldest
generation, the whole heap, again each time it has grown by a quarter: at
10,000 entrypoints seven such walks took 1.2 s of a 3 s listing, and found
nothing to free. `paused()` turns the collector off for the length of such
work. Pauses may nest and overlap across threads: the collector comes back
when the last one ends, and only if it was on when the first began (a program
embedding Guide that turned it off keeps it off). Cycles made meanwhile are
freed by the next collection after. Nothing is frozen: issue 8 found that
freezing what is alive froze other requests' objects too (and a replaced
snapshot's), which then stayed until the next edit.
"""

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_on = False


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off (back on after the last pause ends, if it was on before)."""
    global _pauses, _was_on
    with _lock:
        if _pauses == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_on:
                gc.enable()
