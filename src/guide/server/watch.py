"""Watch the docroot so edits are served without a restart (C2), and follow its path when the folder goes or is replaced.

A file-system watch follows a folder, not a path: moved away, the old folder
goes on reporting its edits, and a new folder put in its place reports none.
So the watch also looks at the docroot's path at least every `CHECK_EVERY`
seconds (`Docroot.folder`): when the folder there is not the one watched, the
snapshot is forgotten and the watch starts again on whatever is there now, or,
while nothing is, waits for a folder to come back.
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from watchfiles import Change, awatch

from guide.docroot.files import Identity
from guide.docroot.folder import Docroot

CHECK_EVERY = 1.0
"""Seconds between looks at the docroot's path when no file event comes."""

log = logging.getLogger("guide")


@asynccontextmanager
async def watching(docroot: Docroot, on_change: Callable[[], None] = lambda: None) -> AsyncIterator[None]:
    """While open, forget the docroot's snapshot whenever one of its files changes, or its folder, then call `on_change`."""
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
    """Watch the files of `folder` until the docroot's path holds another folder, or none.

    With `catch_up`, the snapshot is forgotten once the watch is surely set up
    (its first answer): an edit made while no watch was set up is served too.
    """
    timeout_ms = int(CHECK_EVERY * 1000)
    async for changes in awatch(docroot.root, stop_event=stop, debounce=50, step=20, force_polling=polling,
                                rust_timeout=timeout_ms, yield_on_timeout=True):
        if docroot.folder() != folder:
            return
        if catch_up or not all(change == Change.modified for change, _ in changes):
            docroot.invalidate()
        elif changes:
            docroot.invalidate(Path(path) for _, path in changes)
        else:
            continue  # no event within CHECK_EVERY: the folder was looked at, nothing else to do
        catch_up = False
        on_change()


async def _until_back(docroot: Docroot, stop: asyncio.Event) -> None:
    """Return once a folder is at the docroot's path again (looked at every `CHECK_EVERY` seconds), or the watch stops."""
    while docroot.folder() is None and not stop.is_set():
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), CHECK_EVERY)
