"""Answering from what is ready: a request first tries to use only what is already read, parsed and built.

Handing a request to a worker thread costs about 0.1 ms, as much as the whole of
a warm read. So the server first runs a request under `only_ready()`: every
place that would read a file, parse, build or render calls `slow_work()` first,
which then raises `NotReady`, and the server runs the request again in a worker
thread, where the work is done. A warm request is answered without the hop; a
cold or large one never holds the event loop.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_ONLY_READY: ContextVar[bool] = ContextVar("guide_only_ready", default=False)


class NotReady(BaseException):
    """The answer needs work not done yet. A `BaseException`: no `except Exception` may take it for a failure."""


def slow_work() -> None:
    """Say that slow work starts here (a file read, a parse, a build, a render): under `only_ready()`, raise `NotReady`."""
    if _ONLY_READY.get():
        raise NotReady


@contextmanager
def only_ready() -> Iterator[None]:
    """Within this block, `slow_work()` raises `NotReady` instead of letting the work start."""
    token = _ONLY_READY.set(True)
    try:
        yield
    finally:
        _ONLY_READY.reset(token)
