"""Watch the docroot so edits are served without a restart (C2)."""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from watchfiles import Change, awatch

from guide.docroot.index import Docroot

log = logging.getLogger("guide")


@asynccontextmanager
async def watching(docroot: Docroot) -> AsyncIterator[None]:
    """While open, forget the docroot's snapshot whenever one of its files changes."""
    stop = asyncio.Event()
    task = asyncio.create_task(_watch(docroot, stop))
    try:
        yield
    finally:
        stop.set()
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _watch(docroot: Docroot, stop: asyncio.Event) -> None:
    try:
        async for changes in awatch(docroot.root, stop_event=stop, debounce=50, step=20, recursive=True):
            if all(change == Change.modified for change, _ in changes):
                docroot.invalidate(Path(path) for _, path in changes)
            else:
                docroot.invalidate()
    except Exception:
        log.exception("watching %s stopped; edits now need a restart", docroot.root)
