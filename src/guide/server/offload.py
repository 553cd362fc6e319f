"""Run a request's synchronous work off the event loop, unless it needs only what is ready (see `guide.docroot.ready`)."""

from collections.abc import Callable
from typing import Any, TypeVar

from anyio import to_thread

from guide.docroot.ready import NotReady, only_ready

T = TypeVar("T")


async def run(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)`: done here when it needs nothing read, parsed, built or rendered anew, else in a worker thread.

    The first try stops at the first slow step, before it changes anything, so
    the second try in the thread starts from the same state.
    """
    try:
        with only_ready():
            return work(*args)
    except NotReady:
        return await to_thread.run_sync(work, *args)
