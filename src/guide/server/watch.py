"""Watch the docroot so edits are served without a restart (C2)."""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from watchfiles import Change, awatch

from guide.docroot.folder import Docroot

log = logging.getLogger("guide")


@asynccontextmanager
async def watching(docroot: Docroot, on_change: Callable[[], None] = lambda: None) -> AsyncIterator[None]:
    """While open, forget the docroot's snapshot whenever one of its files changes, then call `on_change`."""
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
    for polling in (False, True):
        try:
            async for changes in awatch(docroot.root, stop_event=stop, debounce=50, step=20, force_polling=polling):
                if all(change == Change.modified for change, _ in changes):
                    docroot.invalidate(Path(path) for _, path in changes)
                else:
                    docroot.invalidate()
                on_change()
            return
        except Exception:
            docroot.invalidate()
            how = "edits now need a restart" if polling else "polling for changes instead"
            log.exception("watching %s failed; %s", docroot.root, how)
