"""Watch the docroot so edits are served without a restart (C2), report each burst of edits once, and follow the folder's path.

Every batch of file events forgets the snapshot at once, so the next read
serves the edit. Those who announce changes hear of a burst of edits once, when
it is over: when the watch has seen no file event for `QUIET` seconds, or
`LONGEST_WAIT` after the burst began. The quiet is measured by the watch itself
in its own thread, not by a timer on the event loop: readers can hold the loop
for longer than `QUIET`, and edits made meanwhile would only wait to be seen.

A file-system watch follows a folder, not a path: moved away, the old folder
goes on reporting its edits, and a new folder put in its place reports none.
So the watch also looks at the docroot's path whenever it reports, and at
least every `QUIET` seconds (`Docroot.folder`): when the folder there is not
the one watched, the snapshot is forgotten and the watch starts again on
whatever is there now, or, while nothing is, waits for a folder to come back.
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from watchfiles import Change, awatch

from guide.docroot.files import Identity
from guide.docroot.folder import Docroot

QUIET = 0.3
"""Seconds without a file event, as the watch measures them, that end a burst of edits."""
LONGEST_WAIT = 10.0
"""Seconds after the first edit of a burst by which it is reported even if edits go on."""
CHECK_EVERY = 1.0
"""Seconds between looks at the docroot's path while no folder is there."""

log = logging.getLogger("guide")


@asynccontextmanager
async def watching(docroot: Docroot, on_change: Callable[[], None] = lambda: None) -> AsyncIterator[None]:
    """While open, forget the docroot's snapshot whenever one of its files changes, or its folder; call `on_change` once per burst."""
    stop = asyncio.Event()
    task = asyncio.create_task(_watch(docroot, stop, on_change))
    try:
        yield
    finally:
        stop.set()
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _watch(docroot: Docroot, stop: asyncio.Event, on_change: Callable[[], None]) -> None:
    # File-system events first; if the system refuses them (for example, too many
    # watches), poll instead, which keeps edits live at the cost of some CPU.
    polling, restarted = False, False
    while not stop.is_set():
        folder = docroot.folder()
        if folder is None:
            await _until_back(docroot, stop)
        else:
            try:
                await _follow(docroot, folder, stop, on_change, polling, catch_up=restarted)
            except Exception:
                docroot.invalidate()
                if docroot.folder() == folder:  # the watch failed, not the folder
                    how = "edits now need a restart" if polling else "polling for changes instead"
                    log.exception("watching %s failed; %s", docroot.root, how)
                    if polling:
                        return
                    polling = True
        restarted = True
        if stop.is_set():
            return
        if folder is not None and docroot.folder() == folder:
            await asyncio.sleep(CHECK_EVERY)  # the watch ended by itself: start it again, but not in a busy loop
        else:
            on_change()  # the folder went, came back or was replaced: the listings may differ


async def _follow(docroot: Docroot, folder: Identity, stop: asyncio.Event, on_change: Callable[[], None], polling: bool, *, catch_up: bool) -> None:
    """Watch the files of `folder` until the docroot's path holds another folder, or none; report each burst once.

    With `catch_up`, the snapshot is forgotten once the watch is surely set up
    (its first answer): an edit made while no watch was set up is served too.
    """
    loop = asyncio.get_running_loop()
    burst: float | None = None  # when the burst going on began (the loop's time)
    async for changes in awatch(docroot.root, stop_event=stop, debounce=50, step=20, force_polling=polling,
                                rust_timeout=int(QUIET * 1000), yield_on_timeout=True):
        if docroot.folder() != folder:
            return
        if changes or catch_up:  # nothing comes only after `QUIET` seconds without a file event
            _forget(docroot, changes, everything=catch_up)
            catch_up, burst = False, loop.time() if burst is None else burst
            if loop.time() - burst < LONGEST_WAIT:
                continue
        elif burst is None:
            continue
        burst = None
        on_change()


def _forget(docroot: Docroot, changes: set[tuple[Change, str]], *, everything: bool) -> None:
    """Forget the snapshot: the files modified in place when that is all that happened, else everything."""
    if everything or not all(change == Change.modified for change, _ in changes):
        docroot.invalidate()
    else:
        docroot.invalidate(Path(path) for _, path in changes)


async def _until_back(docroot: Docroot, stop: asyncio.Event) -> None:
    """Return once a folder is at the docroot's path again (looked at every `CHECK_EVERY` seconds), or the watch stops."""
    while docroot.folder() is None and not stop.is_set():
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), CHECK_EVERY)
