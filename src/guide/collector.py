"""Python's cyclic garbage collector, kept off Guide's bulk work and off what that work built.

A listing, a catalog or a check of a large docroot allocates hundreds of
thousands of objects that live as long as the snapshot, and almost none of
them take part in a cycle. While they pile up, Python walks its oldest
generation, the whole heap, again each time it has grown by a quarter; and once
they are made, the first requests after pay for walking them again as they are
promoted. At 10,000 entrypoints seven such walks took 1.2 s of a 3 s listing,
and three more 0.9 s of the next request, finding nothing to free.

`paused()` turns the collector off for the length of such work. Pauses may nest
and overlap across threads. When the last one ends, everything alive is moved
out of the collector's sight (`gc.freeze`) and the collector comes back, if it
was on when the first pause began (a program embedding Guide that turned it off
keeps it off). A frozen object is still freed as soon as nothing refers to it;
only cycles among frozen objects wait, for `thaw`, which a docroot calls each
time it builds a new snapshot: the cycles of the one replaced (and anything else
frozen meanwhile) are then collected as usual.
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
    """Run the body with the cyclic garbage collector off; after the last pause, freeze what is alive and turn it back on (if it was on)."""
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
                gc.freeze()
                gc.enable()


def thaw() -> None:
    """Hand everything frozen back to the collector (a new snapshot replaces the one whose objects were frozen)."""
    gc.unfreeze()
