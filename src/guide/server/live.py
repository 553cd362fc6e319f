"""Tell connected clients when the docroot's listings change (resources and prompts), or its session context does.

The watch reports each burst of edits once it is over (`guide.server.watch`:
`QUIET`, `LONGEST_WAIT`); `ListChanges` then compares what the listings show
before and after, and when they differ, each protocol era tells its own clients
(legacy sessions a notification of each kind, 2026-07-28 clients an event on
their `subscriptions/listen` stream: `guide.server.eras`). The session context
(`instructions:` in guide.yaml, `guide.routes.instructions`) is compared as the
text clients were last given, since a body edit leaves the listings as they are.
"""

import asyncio
import logging

from guide.docroot.built import Built, same_listings
from guide.docroot.folder import Docroot
from guide.routes.instructions import context
from guide.server import work
from guide.server.eras import Eras

log = logging.getLogger("guide")


class ListChanges:
    """Announces listing changes of one docroot to every connected client, at most once per burst of edits."""

    def __init__(self, docroot: Docroot, eras: Eras):
        self.docroot = docroot
        self.eras = eras
        self._announced: Built | None = None
        self._context: str | None = None
        """The session context of the build announced (None: nothing listed)."""
        self._edited = asyncio.Event()

    def edited(self) -> None:
        """Note that a burst of edits is over (or the folder changed): the listings are compared, and a change announced."""
        self._edited.set()

    async def shown(self) -> Built | None:
        """The build whose listings clients may have seen so far: the current one (None while the docroot folder is gone)."""
        return await work.built_or_build(self.docroot, lambda built: built, lambda built: built, gone=lambda: None)

    async def run(self, seen: Built | None = None) -> None:
        """Announce changes until cancelled; `seen` is the build whose listings clients saw so far (None: nothing listed)."""
        self._announced = seen
        self._context = await work.off_loop(context, seen) if seen is not None else None
        while True:
            await self._edited.wait()
            self._edited.clear()
            current = await self.shown()
            if current is None:  # listings are empty until a folder is back: that is a change too
                if self._announced is not None:
                    await self.announce()
                self._announced = self._context = None
                continue
            unchanged = self._announced is not None and await work.off_loop(same_listings, self._announced, current)
            told, self._context = self._context, await work.off_loop(context, current)
            unchanged = unchanged and told == self._context
            await work.off_loop(lambda: self.docroot.keep_parses(if_loaded=True))
            if unchanged:
                log.debug("edits settled; the listings and the session context are unchanged")
            else:
                await self.announce()
            self._announced = current

    async def announce(self) -> None:
        """Tell every connected client, in its era, that the listings changed (once per kind)."""
        told = await self.eras.announce()
        log.info("listings changed; told %d session(s) and listen stream(s)", told)
