"""The 2026-07-28 era's list-changed stream (`subscriptions/listen`, SEP-2575), served bounded.

A client that stops reading must not hold the others or the server's memory:
`ListenStreams` bounds how many streams are open at once, how many of them one
owner (a principal, or without authentication a client address: see
`guide.server.owners`) may hold, how many events one may leave unwritten before
it is dropped, and how long one may stay open without an event.
"""

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
from mcp import MCPError
from mcp.server.subscriptions import SUBSCRIPTION_ID_META_KEY, ListenHandler, ServerEvent, SubscriptionBus
from mcp.shared.subscriptions import event_matches
from mcp_types import INTERNAL_ERROR, SubscriptionFilter, SubscriptionsListenRequestParams, SubscriptionsListenResult

from guide.server.owners import owner

MAX_LISTEN_STREAMS = 256
"""The most `subscriptions/listen` streams served at once (an open stream costs the server about 70 KB); one more is refused."""
LISTEN_BACKLOG = 16
"""Events a listen stream may leave unwritten before it is dropped: a change event only says "list again", so a client
that has not taken 16 of them is not reading."""
LISTEN_SHARE = MAX_LISTEN_STREAMS // 8
"""The most listen streams one owner may hold at once, so that one client cannot take every place."""
LISTEN_IDLE = 1800.0
"""Seconds a listen stream stays open without an event before it is ended gracefully (the client may listen again): as
long as the MCP SDK keeps an HTTP session without a request, so a stream never holds a place for ever."""
TOO_MANY_STREAMS = f"Guide serves at most {MAX_LISTEN_STREAMS} listen streams at once; close one, or listen again later"
TOO_MANY_OWNED = f"Guide serves at most {LISTEN_SHARE} listen streams to one client at once; close one of yours first"

log = logging.getLogger("guide")


class ListenStreams:
    """Serves `subscriptions/listen` with the MCP SDK's `ListenHandler`, bounded.

    The SDK queues each stream's events in a buffer of its own and writes them
    one by one; a client that does not read leaves its writes waiting and the
    buffer filling. So each stream is counted as it is delivered to and written
    (`_Stream`), and once `LISTEN_BACKLOG` events wait unwritten the stream is
    ended: its handler, subscription and buffer go, one line is logged, and the
    client may listen again. (The SDK's own bounds stay, just past Guide's.)
    No more than `MAX_LISTEN_STREAMS` are open at once, and no more than
    `LISTEN_SHARE` of one owner, counted until each handler has returned. A
    stream without an event for `LISTEN_IDLE` seconds is ended gracefully.
    """

    def __init__(self, bus: SubscriptionBus):
        self.bus = bus
        self._open: set[ListenHandler] = set()
        self._owned: Counter[tuple] = Counter()

    async def __call__(self, ctx: Any, params: SubscriptionsListenRequestParams) -> SubscriptionsListenResult:
        """Serve one listen stream until the client goes, the server closes it, or it is dropped for not reading or idling."""
        holder = owner(ctx.request)
        if len(self._open) >= MAX_LISTEN_STREAMS:
            raise MCPError(INTERNAL_ERROR, TOO_MANY_STREAMS)
        if self._owned[holder] >= LISTEN_SHARE:
            raise MCPError(INTERNAL_ERROR, TOO_MANY_OWNED)
        stream = _Stream(self.bus, params.notifications)
        handler = ListenHandler(stream, max_subscriptions=1, max_buffered_events=LISTEN_BACKLOG + 2)
        self._open.add(handler)
        self._owned[holder] += 1
        try:
            with stream.scope:
                stream.idle()
                return await handler(dataclasses.replace(ctx, session=_Counted(ctx.session, stream)), params)
        finally:
            self._open.discard(handler)
            self._owned[holder] -= 1
            if not self._owned[holder]:
                del self._owned[holder]
        if stream.behind:
            log.warning("listen stream %.40r left %d events unread; it was dropped (the client may listen again)", ctx.request_id, LISTEN_BACKLOG)
        else:
            log.info("listen stream %.40r had no event for %g s; it was ended (the client may listen again)", ctx.request_id, LISTEN_IDLE)
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
        self.behind = False
        """Whether it was ended for leaving too many events unwritten."""

    def idle(self) -> None:
        """Start (again) the time the stream may stay without an event."""
        self.scope.deadline = anyio.current_time() + LISTEN_IDLE

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
                    self.behind = True
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
        self._stream.idle()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)
