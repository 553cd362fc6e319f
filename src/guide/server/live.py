"""Tell connected clients when the docroot's listings change (resources and prompts).

Legacy sessions get `notifications/resources/list_changed` and
`notifications/prompts/list_changed`; 2026-07-28 clients get the same events on
their `subscriptions/listen` stream (SEP-2575), served by the MCP SDK's
`ListenHandler` over an in-process `SubscriptionBus`. Edits arrive from the
watcher in bursts; `ListChanges` waits for a quiet moment, compares what the
listings show before and after, and announces a change once per kind.
"""

import asyncio
import logging

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from mcp.server.connection import Connection
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, PromptsListChanged, ResourcesListChanged
from mcp_types import SubscriptionsListenRequestParams

from guide.docroot.built import Built, same_listings
from guide.docroot.folder import Docroot, DocrootGone
from guide.server import work

QUIET = 0.3
"""Seconds without a new edit before a burst of edits is announced."""
LONGEST_WAIT = 10.0
"""Seconds after the first edit of a burst by which it is announced even if edits go on."""

log = logging.getLogger("guide")


class _LegacySessions(Middleware):
    """Remembers each handshake-era connection from its `initialize` until it closes."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()

    async def on_initialize(self, context, call_next):
        """Record the connection this handshake opens."""
        result = await call_next(context)
        session = context.fastmcp_context.session if context.fastmcp_context else None
        # The SDK builds a session per request; the connection behind it lives as long as
        # the client stays. FastMCP 4.2 names it only here (its own PingMiddleware does the same).
        connection = getattr(session, "_connection", None)
        if isinstance(connection, Connection):
            self.connections.add(connection)
            connection.exit_stack.callback(self.connections.discard, connection)
        return result


class ListChanges:
    """Announces listing changes of one docroot to every connected client, at most once per burst of edits."""

    def __init__(self, docroot: Docroot):
        self.docroot = docroot
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.sessions = _LegacySessions()
        self._announced: Built | None = None
        self._edited = asyncio.Event()

    def install(self, server: FastMCP) -> None:
        """Serve `subscriptions/listen` and record legacy sessions on `server`."""
        server.add_middleware(self.sessions)
        # FastMCP 4.2 has no public hook for a spec method such as subscriptions/listen;
        # the SDK's handler is registered on FastMCP's low-level server instead.
        server._mcp_server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, self.listen)

    def edited(self) -> None:
        """Note that files changed; the announcement follows once the edits settle."""
        self._edited.set()

    async def shown(self) -> Built | None:
        """The build whose listings clients may have seen so far: the current one (None while the docroot folder is gone)."""
        try:
            return await work.off_loop(self.docroot.current)
        except DocrootGone:
            return None

    async def run(self, seen: Built | None = None) -> None:
        """Announce changes until cancelled; `seen` is the build whose listings clients saw so far (None: nothing listed)."""
        self._announced = seen
        while True:
            await self._edited.wait()
            await self._settle()
            current = await self.shown()
            if current is None:  # listings are empty until a folder is back: that is a change too
                if self._announced is not None:
                    await self.announce()
                self._announced = None
                continue
            unchanged = self._announced is not None and await work.off_loop(same_listings, self._announced, current)
            await work.off_loop(lambda: self.docroot.keep_parses(if_loaded=True))
            if unchanged:
                log.debug("edits settled; the listings are unchanged")
            else:
                await self.announce()
            self._announced = current

    async def announce(self) -> None:
        """Send one change of each kind to every legacy session and every listen stream."""
        for connection in list(self.sessions.connections):
            await connection.send_resource_list_changed()
            await connection.send_prompt_list_changed()
        await self.bus.publish(ResourcesListChanged())
        await self.bus.publish(PromptsListChanged())
        log.info("listings changed; told %d legacy session(s) and every listen stream", len(self.sessions.connections))

    def close(self) -> None:
        """End every listen stream gracefully (at shutdown)."""
        self.listen.close()

    async def _settle(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LONGEST_WAIT
        while True:
            self._edited.clear()
            try:
                await asyncio.wait_for(self._edited.wait(), min(QUIET, max(0.0, deadline - loop.time())))
            except TimeoutError:
                return
            if loop.time() >= deadline:
                self._edited.clear()
                return
