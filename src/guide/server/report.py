"""What a starting server does once it has answered its first request: the start line, and what was parsed kept."""

import asyncio
import logging
from contextlib import suppress

from fastmcp.server.middleware import Middleware

from guide.docroot.folder import Docroot
from guide.docroot.store.reports import checked
from guide.server import work
from guide.server.errors import one_line

log = logging.getLogger("guide")


def start_line(docroot: Docroot) -> str:
    """One line naming the docroot, what it holds and how many authoring errors it has.

    The count comes from `guide check`'s kept report when nothing changed since it
    was made (a restart reads no template), and is kept for it.
    """
    built = docroot.current()
    layout = built.snapshot.layout
    counts = ", ".join(_count(len(table), kind) for kind, table in _tables(layout))
    errors = len(checked(built, docroot.store).problems)
    verdict = f"{_count(errors, 'authoring error')} (`guide check {docroot.root}` lists them)" if errors else "no authoring errors"
    return f"serving {docroot.root}: {counts}; {verdict}"


async def report_start(docroot: Docroot) -> None:
    """Log the start line once the docroot has been checked, then keep what was parsed.

    Both are background work: a server that stops (a client that asked one
    question and left) does not wait for a check nobody will read. Kept files are
    replaced atomically, so a save cut short leaves the old one.
    """
    try:
        log.info(await work.in_background(start_line, docroot))
        await work.in_background(lambda: docroot.keep_parses(if_loaded=True))
    except Exception as error:  # a start report must never stop the server
        log.warning("could not check %s at start: %s", docroot.root, one_line(error))


def _tables(layout):
    return (("command", layout.commands), ("skill", layout.skills), ("partial", layout.partials), ("document", layout.documents))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


class FirstAnswer(Middleware):
    """Knows when the server has answered its first request beyond the handshake, and when it is calm.

    Start-up work that is not needed to answer waits for these moments, so it
    never delays what a client asked: watching the docroot waits for the first
    answer; checking the whole docroot also waits until no request is in hand
    (a client lists everything as it connects, and the check would compete).
    """

    HANDSHAKE = ("initialize", "server/discover", "ping")
    LONG_LIVED = ("subscriptions/listen",)
    """Requests that stay open while the client is connected: they never keep the server busy."""

    def __init__(self) -> None:
        self.answered = asyncio.Event()
        self._busy = 0
        self._last = 0.0  # the event loop's time when the last request ended

    async def __call__(self, context, call_next):
        """Answer the request; note when it is the first real one, and when none is in hand (`__call__`: no hook chain)."""
        counted = context.method not in self.LONG_LIVED
        self._busy += counted
        try:
            return await call_next(context)
        finally:
            self._busy -= counted
            self._last = asyncio.get_running_loop().time()
            if context.method not in self.HANDSHAKE:
                self.answered.set()

    async def wait(self, longest: float) -> None:
        """Return once a request has been answered, or after `longest` seconds without one."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self.answered.wait(), longest)

    async def calm(self, quiet: float, longest: float) -> None:
        """Return once no request has been in hand for `quiet` seconds; however busy the server stays, after `longest`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + longest
        while loop.time() < deadline:
            calm = loop.time() - self._last
            if self._busy == 0 and calm >= quiet:
                return
            await asyncio.sleep(quiet - calm if self._busy == 0 else quiet)
