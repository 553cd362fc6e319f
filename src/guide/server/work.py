"""Where work runs: the event loop only answers from what is built; anything else runs in one pool of worker threads.

Reading a file, scanning the docroot, parsing, building and rendering never run
on the event loop, so a large or slow request never holds the others. The
service first asks the docroot's build whether what a read needs is built
(`Built.peek`, `Built.recall`), and answers on the loop only then: handing a
request to a thread costs about 0.1 ms, as much as a whole warm read.

There is one pool, AnyIO's worker threads (shared with FastMCP's own blocking
calls, 40 at most): `off_loop` for work a request waits for, `in_background` for
work nobody waits on (the start check, keeping parses), which a stopping server
abandons rather than waits for.
"""

from collections.abc import Callable
from typing import Any, TypeVar

from anyio import to_thread

T = TypeVar("T")


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in a worker thread; the request waits for it (and it finishes even if the request is cancelled)."""
    return await to_thread.run_sync(work, *args)


async def in_background(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in a worker thread that a cancelled caller leaves to finish on its own (nobody waits for it at exit)."""
    return await to_thread.run_sync(work, *args, abandon_on_cancel=True)
