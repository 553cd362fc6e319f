"""Where work runs: the event loop only answers from what is built; anything else runs in one pool of worker threads.

Reading a file, scanning the docroot, parsing, building and rendering never run
on the event loop, so a large or slow request never holds the others. Every
component asks first whether what it needs is built (`built_or_build`: a
build's `made` value or `recall`ed memo, the known phase) and answers on the
loop only then: handing a request to a thread costs about 0.1 ms, as much as a
whole warm read. Otherwise it is made in a worker, and while the docroot folder
is gone the component says so in its own way (`gone`).

There is one pool, AnyIO's worker threads (shared with FastMCP's own blocking
calls, 40 at most): `off_loop` for work a request waits for, `in_background` for
work nobody waits on (the start check, keeping parses), which a stopping server
abandons rather than waits for. Work that may take a time budget whatever its
size (checking values against a backtracking pattern) runs in threads of its own
few (`slow_checks`), so however many requests bring such work, the pool stays
free for everyone else's; so do reads of live sources (`source_reads`), which
start a process each.
"""

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread

from guide import collector
from guide.docroot.built import Built
from guide.docroot.folder import Docroot, DocrootGone
from guide.docroot.memo import UNBUILT, Unbuilt

T = TypeVar("T")


SLOW_CHECK_THREADS = 2
"""Worker threads that check values against backtracking patterns at once (one per core of a small machine); more requests wait their turn."""


SOURCE_READS = 4
"""Live sources (a `git` process, a walk of the project's folders) read at once by one server; more reads wait their turn."""


def source_reads() -> CapacityLimiter:
    """A limiter for one server's reads of live sources (`SOURCE_READS` at once), to pass to `off_loop`."""
    return CapacityLimiter(SOURCE_READS)


def slow_checks() -> CapacityLimiter:
    """A limiter for one server's time-budgeted work (`SLOW_CHECK_THREADS` at once), to pass to `off_loop`."""
    return CapacityLimiter(SLOW_CHECK_THREADS)


async def off_loop(work: Callable[..., T], *args: Any, limiter: CapacityLimiter | None = None) -> T:
    """`work(*args)` in a worker thread (of `limiter`'s, when given); the request waits for it (and it finishes even if the request is cancelled)."""
    return await to_thread.run_sync(work, *args, limiter=limiter)


async def in_background(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in a worker thread that a cancelled caller leaves to finish on its own (nobody waits for it at exit)."""
    return await to_thread.run_sync(work, *args, abandon_on_cancel=True)


async def built_or_build(
    docroot: Docroot,
    known: Callable[[Built], T | Unbuilt],
    make: Callable[[Built], T],
    *,
    gone: Callable[[], T] | None = None,
    built: Built | None = None,
    limiter: CapacityLimiter | None = None,
    bulk: bool = False,
) -> T:
    """What `known` finds already built, answered on the event loop; else `make(build)` in a worker thread.

    The build is the docroot's current one (made first when files changed), or
    `built` when given (a read's own); `make` runs in a thread of `limiter`'s when
    given. While the docroot folder is gone, `gone()` answers; without `gone`,
    `DocrootGone` is raised (a read says why it failed). `bulk` work (a listing,
    the catalog: something made of every file) runs with the garbage collector
    paused (`guide.collector`).
    """
    now = built if built is not None else docroot.built()
    found = known(now) if now is not None else UNBUILT
    if found is not UNBUILT:
        return found

    def run() -> T:
        with collector.paused() if bulk else nullcontext():
            return make(built if built is not None else docroot.build())

    try:
        return await off_loop(run, limiter=limiter)
    except DocrootGone:
        if gone is None:
            raise
        return gone()
