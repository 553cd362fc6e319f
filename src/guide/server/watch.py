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

from watchfiles import Change

from guide.docroot.files import Identity, shown
from guide.docroot.folder import Docroot
from guide.docroot.watcher import FolderWatch
from guide.server import work

QUIET = 0.3
"""Seconds without a file event, as the watch measures them, that end a burst of edits."""
LONGEST_WAIT = 10.0
"""Seconds after the first edit of a burst by which it is reported even if edits go on."""
CHECK_EVERY = 1.0
"""Seconds between looks at the docroot's path while no folder is there."""
RETRY = 10.0
"""Seconds between attempts to watch again when even polling failed."""

log = logging.getLogger("guide")


@asynccontextmanager
async def watching(docroot: Docroot, on_change: Callable[[], None] = lambda: None) -> AsyncIterator[None]:
    """While open, forget the docroot's snapshot whenever one of its files changes, or its folder; call `on_change` once per burst.

    Opens once the watch is set up (made in a worker thread), so an edit made from then on is seen.
    """
    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(_watch(docroot, stop, on_change, ready))
    try:
        await ready.wait()
        yield
    finally:
        stop.set()
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _watch(docroot: Docroot, stop: asyncio.Event, on_change: Callable[[], None], ready: asyncio.Event) -> None:
    try:
        await _keep_watching(docroot, stop, on_change, ready)
    finally:
        ready.set()  # also when it could not begin: whoever waits goes on


async def _keep_watching(docroot: Docroot, stop: asyncio.Event, on_change: Callable[[], None], ready: asyncio.Event) -> None:
    # File-system events first; if the system refuses them (for example, too many
    # watches), poll instead, which keeps edits live at the cost of some CPU; if
    # polling fails too, try again every `RETRY` seconds (one log line, not one per try).
    polling, failed, restarted = False, False, False
    reported: set[str] = set()  # unreadable folders already named in the log
    while not stop.is_set():
        folder = docroot.folder()
        if folder is None:
            ready.set()
            await _until_back(docroot, stop)
        else:
            try:
                await _follow(docroot, folder, stop, on_change, polling, catch_up=restarted, reported=reported, ready=ready)
                failed = False
            except Exception:
                docroot.invalidate()
                if docroot.folder() == folder:  # the watch failed, not the folder
                    if not failed:
                        how = f"trying again every {RETRY:.0f} s" if polling else "polling for changes instead"
                        log.exception("watching %s failed; %s", docroot.root, how)
                    failed, polling = polling, True
                    ready.set()
        restarted = True
        if stop.is_set():
            return
        if folder is not None and docroot.folder() == folder:
            # the watch ended by itself (or failed): start it again, but not in a busy loop
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), RETRY if failed else CHECK_EVERY)
        else:
            on_change()  # the folder went, came back or was replaced: the listings may differ


async def _follow(docroot: Docroot, folder: Identity, stop: asyncio.Event, on_change: Callable[[], None], polling: bool, *,
                  catch_up: bool, reported: set[str], ready: asyncio.Event) -> None:
    """Watch the folders of `folder` until the docroot's path holds another folder, or none; report each burst once.

    With `catch_up`, the snapshot is forgotten once the watch is set up: an edit
    made while no watch was set up is served too. When a folder is made, removed
    or renamed, the watch is made again (with `catch_up`) for the folders as they are.
    """
    loop = asyncio.get_running_loop()
    burst: float | None = None  # when the burst going on began (the loop's time)
    while True:
        watcher = await work.in_background(lambda: FolderWatch(docroot.root, polling=polling))
        ready.set()
        try:
            _report_unreadable(watcher, reported)
            while True:
                if catch_up:
                    changes: set[tuple[Change, str]] | None = set()
                else:
                    changes = await work.off_loop(watcher.changes, 50, 20, int(QUIET * 1000), stop)
                if changes is None or docroot.folder() != folder:
                    return
                outgrown = watcher.outgrown(changes)
                if changes or catch_up:  # nothing comes only after `QUIET` seconds without a file event
                    _forget(docroot, changes, everything=catch_up)
                    catch_up, burst = False, loop.time() if burst is None else burst
                    if outgrown:
                        catch_up = True
                        break
                    if loop.time() - burst < LONGEST_WAIT:
                        continue
                elif burst is None:
                    continue
                burst = None
                on_change()
        finally:
            watcher.close()


def _report_unreadable(watcher: FolderWatch, reported: set[str]) -> None:
    """One log line for each folder the watch cannot read, the first time it is found so."""
    for rel in watcher.unreadable:
        if rel not in reported:
            reported.add(rel)
            log.warning("the docroot folder %s cannot be read: its files are not served and its edits not seen", shown(rel) or ".")
    reported.intersection_update(watcher.unreadable)  # readable again: named again if it is locked once more


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
