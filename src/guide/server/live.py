"""Tell connected clients when the docroot's listings change (resources and prompts).

Legacy sessions get `notifications/resources/list_changed` and
`notifications/prompts/list_changed`; 2026-07-28 clients get the same events on
their `subscriptions/listen` stream (SEP-2575), served by the MCP SDK's
`ListenHandler` over an in-process `SubscriptionBus`. The watch reports each
burst of edits once it is over (`guide.server.watch`: `QUIET`, `LONGEST_WAIT`);
`ListChanges` then compares what the listings show before and after, and
announces a change once per kind.

A client that stops reading must not hold the others or the server's memory:
`ListenStreams` bounds the listen streams (how many at once, and how many
events one may leave unwritten before it is dropped), and a legacy session
that does not take a notification within `NOTIFY_TIMEOUT` is told no more.
"""

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import anyio
from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from mcp import MCPError
from mcp.server.connection import Connection
from mcp.server.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    SubscriptionBus,
)
from mcp.shared.subscriptions import event_matches
from mcp_types import INTERNAL_ERROR, SubscriptionFilter, SubscriptionsListenRequestParams, SubscriptionsListenResult

from guide.docroot.built import Built, same_listings
from guide.docroot.folder import Docroot, DocrootGone
from guide.server import work

MAX_LISTEN_STREAMS = 256
"""The most `subscriptions/listen` streams served at once (an open stream costs the server about 70 KB); one more is refused."""
LISTEN_BACKLOG = 16
"""Events a listen stream may leave unwritten before it is dropped: a change event only says "list again", so a client
that has not taken 16 of them is not reading."""
NOTIFY_TIMEOUT = 10.0
"""Seconds a legacy session has to take one list-changed notification; one that does not is told no more."""
TOO_MANY_STREAMS = f"Guide serves at most {MAX_LISTEN_STREAMS} listen streams at once; close one, or listen again later"

log = logging.getLogger("guide")


class ListenStreams:
    """Serves `subscriptions/listen` with the MCP SDK's `ListenHandler`, bounded.

    The SDK queues each stream's events in a buffer of its own and writes them
    one by one; a client that does not read leaves its writes waiting and the
    buffer filling. So each stream is counted as it is delivered to and written
    (`_Stream`), and once `LISTEN_BACKLOG` events wait unwritten the stream is
    ended: its handler, subscription and buffer go, one line is logged, and the
    client may listen again. (The SDK's own bounds stay, just past Guide's.)
    No more than `MAX_LISTEN_STREAMS` are open at once, counted until each
    handler has returned.
    """

    def __init__(self, bus: SubscriptionBus):
        self.bus = bus
        self._open: set[ListenHandler] = set()

    async def __call__(self, ctx: Any, params: SubscriptionsListenRequestParams) -> SubscriptionsListenResult:
        """Serve one listen stream until the client goes, the server closes it, or it is dropped for not reading."""
        if len(self._open) >= MAX_LISTEN_STREAMS:
            raise MCPError(INTERNAL_ERROR, TOO_MANY_STREAMS)
        stream = _Stream(self.bus, params.notifications)
        handler = ListenHandler(stream, max_subscriptions=1, max_buffered_events=LISTEN_BACKLOG + 2)
        self._open.add(handler)
        try:
            with stream.scope:
                return await handler(dataclasses.replace(ctx, session=_Counted(ctx.session, stream)), params)
        finally:
            self._open.discard(handler)
        log.warning("listen stream %.40r left %d events unread; it was dropped (the client may listen again)", ctx.request_id, LISTEN_BACKLOG)
        return SubscriptionsListenResult(_meta={SUBSCRIPTION_ID_META_KEY: ctx.request_id})

    @property
    def count(self) -> int:
        """How many listen streams are open now."""
        return len(self._open)

    def close(self) -> None:
        """End every listen stream gracefully (at shutdown)."""
        for handler in list(self._open):
            handler.close()


class _Stream:
    """One listen stream's view of the bus: counts the events delivered to it and written, and ends it past the backlog."""

    def __init__(self, bus: SubscriptionBus, wanted: SubscriptionFilter):
        self.bus = bus
        self.wanted = wanted
        self.uris = frozenset(wanted.resource_subscriptions or ())
        self.delivered = 0
        self.written = -1  # the acknowledgement is written first, and is no event
        self.scope = anyio.CancelScope()

    async def publish(self, event: ServerEvent) -> None:
        """Publish on the shared bus."""
        await self.bus.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Subscribe the stream's handler to the shared bus, counting what it is given."""

        def deliver(event: ServerEvent) -> None:
            listener(event)
            if event_matches(self.wanted, self.uris, event):
                self.delivered += 1
                if self.delivered - self.written > LISTEN_BACKLOG:
                    self.scope.cancel()

        return self.bus.subscribe(deliver)


class _Counted:
    """The session a listen stream writes to, counting the writes that were taken."""

    def __init__(self, session: Any, stream: _Stream):
        self._session = session
        self._stream = stream

    async def send_notification(self, *args: Any, **kwargs: Any) -> None:
        """Write one frame of the stream; counted once the client's side has taken it."""
        await self._session.send_notification(*args, **kwargs)
        self._stream.written += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class _LegacySessions(Middleware):
    """Remembers each handshake-era connection from its `initialize` until it closes."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()

    async def __call__(self, context, call_next):
        """Answer the request; after an `initialize`, record the connection it opened.

        Overriding `__call__` (not `on_initialize`) spares every other request the
        chain of hooks FastMCP would build for this middleware (about 2 % of a read).
        """
        result = await call_next(context)
        if context.method != "initialize":
            return result
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
        self.listen = ListenStreams(self.bus)
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
        """Note that a burst of edits is over (or the folder changed): the listings are compared, and a change announced."""
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
            self._edited.clear()
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
        """Send one change of each kind to every listen stream and every legacy session (to each at once, not in turn)."""
        await self.bus.publish(ResourcesListChanged())
        await self.bus.publish(PromptsListChanged())
        connections = list(self.sessions.connections)
        async with anyio.create_task_group() as group:
            for connection in connections:
                group.start_soon(self._tell, connection)
        log.info("listings changed; told %d legacy session(s) and %d listen stream(s)", len(connections), self.listen.count)

    async def _tell(self, connection: Connection) -> None:
        with anyio.move_on_after(NOTIFY_TIMEOUT) as waited:
            await connection.send_resource_list_changed()
            await connection.send_prompt_list_changed()
        if waited.cancelled_caught:
            self.sessions.connections.discard(connection)
            log.warning("a legacy session took no list-changed notification within %.0f s; it is told no more", NOTIFY_TIMEOUT)

    def close(self) -> None:
        """End every listen stream gracefully (at shutdown)."""
        self.listen.close()
