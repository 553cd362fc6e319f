"""A server's life as one named sequence (`Startup`): what it does as it starts, once clients are served, and as it stops.

As it starts, FastMCP's log of a caller's failed request is made one line.
Start-up work that no request needs waits until the server has answered its
first request (start time is what a user feels): then the docroot is watched;
once no request has been in hand for a moment, it is checked whole, the start
line logged and its listings kept. As the server stops, every era lets its
clients go and what was parsed and listed is kept for the next process, even
when the stop is a cancellation; an HTTP replica lets its eras' clients go as
soon as it begins to stop (`guide.server.stopping`).
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from fastmcp import FastMCP

from guide.docroot.folder import Docroot
from guide.server import logs, stopping, work
from guide.server.eras import Eras
from guide.server.errors import one_line
from guide.server.health import Readiness
from guide.server.hooks import Hooks
from guide.server.live import ListChanges
from guide.server.report import report_start
from guide.server.watch import watching

log = logging.getLogger("guide")

START_GRACE = 3.0
"""Seconds a new server waits for its first request before it checks and watches the docroot anyway."""
START_QUIET = 0.5
"""Seconds without a request in hand before the start check lints the whole docroot."""
START_LONGEST = 30.0
"""Seconds after which the start check begins however busy clients keep the server."""


class Startup:
    """The start-up and shut-down of one server: give `lifespan` to FastMCP, and `first_answer` every request until the start check."""

    def __init__(self, docroot: Docroot, eras: Eras, *, watch: bool = True, keep: Callable[[], None] | None = None):
        """`keep`: what else the server keeps for the next process beside its parses (its listings), run where they are kept (slow)."""
        self.docroot = docroot
        self.keep = keep
        self.eras = eras
        self.watch = watch
        self.changes = ListChanges(docroot, eras)
        self.readiness = Readiness(docroot)
        self.first_answer = FirstAnswer(eras.long_lived())

    @asynccontextmanager
    async def lifespan(self, server: FastMCP) -> AsyncIterator[dict]:
        """While the server runs: load the docroot for `/healthz`, then watch and check it; at the end, let go and keep parses."""
        logs.quiet_caller_errors()  # once per process: a caller's mistake is one INFO line, never a traceback
        task = asyncio.create_task(self._after_first_answer(server))
        forget = stopping.on_stop(self.eras.close)  # an HTTP replica lets its clients go as it begins to stop
        try:
            async with self.readiness.loading():
                yield {}
        finally:
            forget()
            self.eras.close()
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
            with anyio.CancelScope(shield=True):  # a server stopping by cancellation still keeps what it parsed
                await work.off_loop(self._keep)

    async def _after_first_answer(self, server: FastMCP) -> None:
        await self.first_answer.wait(START_GRACE)
        if not self.watch:
            await self._check_when_calm(server)
            return
        seen = await self.changes.shown()  # what clients may have been shown so far
        async with watching(self.docroot, self.changes.edited):
            self.docroot.invalidate()  # an edit made before the watch began is still served, and announced
            self.changes.edited()
            reporting = asyncio.create_task(self._check_when_calm(server))
            try:
                await self.changes.run(seen)
            finally:
                reporting.cancel()
                with suppress(asyncio.CancelledError):
                    await reporting

    async def _check_when_calm(self, server: FastMCP) -> None:
        await self.first_answer.calm(START_QUIET, START_LONGEST)
        Hooks.of(server).unwatch(self.first_answer)  # its job is done: later requests need not tell it
        await report_start(self.docroot)
        await work.in_background(self._keep_listed)

    def _keep(self) -> None:
        self.docroot.keep_parses(if_loaded=True)
        self._keep_listed()

    def _keep_listed(self) -> None:
        if self.keep is None:
            return
        try:
            self.keep()
        except Exception as error:  # kept for the next process: keeping never stops this one
            log.warning("could not keep the listings of %s: %s", self.docroot.root, one_line(error))


class FirstAnswer:
    """Knows when the server has answered its first request beyond the handshake, and when it is calm.

    Start-up work that is not needed to answer waits for these moments, so it
    never delays what a client asked: watching the docroot waits for the first
    answer to a request (a notification, such as the `notifications/initialized`
    that ends a legacy handshake, is none); checking the whole docroot also waits until no request is in hand
    (a client lists everything as it connects, and the check would compete).
    It watches requests through Guide's middleware (`guide.server.hooks.Watcher`).
    """

    HANDSHAKE = ("initialize", "server/discover", "ping")

    def __init__(self, long_lived: frozenset[str] = frozenset()) -> None:
        """`long_lived`: methods whose requests stay open while the client is connected; they never keep the server busy."""
        self.long_lived = long_lived
        self.answered = asyncio.Event()
        self._busy = 0
        self._last = 0.0  # the event loop's time when the last request ended

    def began(self, context: Any) -> None:
        """A request is in hand (one that stays open while its client is connected is not counted)."""
        self._busy += context.method not in self.long_lived

    def ended(self, context: Any) -> None:
        """A request was answered: note when it is the first real one, and when none is in hand."""
        self._busy -= context.method not in self.long_lived
        self._last = asyncio.get_running_loop().time()
        if context.type == "request" and context.method not in self.HANDSHAKE:
            self.answered.set()  # not on a notification: a legacy client ends its handshake with one, then lists

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
