"""Issue 19, unattacked surface: clients that open listen streams (or legacy sessions) and never read them.

The MCP SDK's `ListenHandler` keeps each `subscriptions/listen` stream's events
in a buffer of its own (1,024 by default) and served up to 1,024 streams: a
client that stopped reading kept its buffer filling for as long as the
docroot changed. Guide now serves at most `MAX_LISTEN_STREAMS` at once and drops
a stream that leaves `LISTEN_BACKLOG` events unwritten: its handler returns,
its subscription and buffer go, one line is logged. A legacy session that does
not take a notification within `NOTIFY_TIMEOUT` is told no more, and never holds
the announcement to the others (it was sent to one session after another).

A client that does not read is modelled by a session whose write never returns
after the acknowledgement: that is what a full transport does to the handler.
"""

import logging

import anyio
import pytest
from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, PromptsListChanged, ResourcesListChanged
from mcp_types import SubscriptionFilter, SubscriptionsListenRequestParams
from starlette.requests import Request

from guide.server.eras import legacy
from guide.server.eras import listen as listen_module
from guide.server.eras.legacy import Legacy
from guide.server.eras.listen import LISTEN_BACKLOG, LISTEN_SHARE, MAX_LISTEN_STREAMS, TOO_MANY_OWNED, TOO_MANY_STREAMS, ListenStreams
from guide.server.eras.modern import Modern

SAFETY_NET = 10.0  # seconds; a net for a hang, never a measurement
WANTED = SubscriptionsListenRequestParams(notifications=SubscriptionFilter(resources_list_changed=True, prompts_list_changed=True))


class Bus(InMemorySubscriptionBus):
    """The in-process bus, counting the subscriptions still held."""

    def __init__(self) -> None:
        super().__init__()
        self.held = 0

    def subscribe(self, listener):
        unsubscribe = super().subscribe(listener)
        self.held += 1
        done = []

        def once() -> None:
            if not done:
                done.append(True)
                self.held -= 1
                unsubscribe()

        return once


class Reader:
    """A client that reads its stream: every write is taken at once."""

    def __init__(self) -> None:
        self.frames: list = []

    async def send_notification(self, notification, related_request_id=None) -> None:
        self.frames.append(notification)


class Stalled(Reader):
    """A client that took the acknowledgement and reads nothing after it: the next write never returns."""

    async def send_notification(self, notification, related_request_id=None) -> None:
        if self.frames:
            await anyio.sleep_forever()
        self.frames.append(notification)


def _changes(tmp_path) -> tuple[Modern, Bus]:
    """The 2026-07-28 era of a server, its listen streams on a bus that counts its subscriptions."""
    era, bus = Modern(), Bus()
    era.bus, era.listen = bus, ListenStreams(bus)
    return era, bus


def _context(session, request_id: int, address: str | None = None) -> ServerRequestContext:
    """A listen request's context; with `address`, as if it came over HTTP from that client address."""
    request = Request({"type": "http", "client": (address, 40000), "headers": []}) if address else None
    return ServerRequestContext(session=session, lifespan_context=None, protocol_version="2026-07-28",
                                method="subscriptions/listen", request_id=request_id, request=request)


def _address(index: int) -> str:
    return f"10.0.{index // 250}.{index % 250 + 1}"


async def _subscribed(bus: Bus, count: int) -> None:
    while bus.held < count:
        await anyio.sleep(0.01)


async def test_a_stream_that_does_not_read_is_dropped_and_its_neighbour_keeps_every_event(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="guide")
    changes, bus = _changes(tmp_path)
    reader, stalled, ended = Reader(), Stalled(), anyio.Event()

    async def stalled_stream() -> None:
        await changes.listen(_context(stalled, 2), WANTED)
        ended.set()

    with anyio.fail_after(SAFETY_NET):
        async with anyio.create_task_group() as group:
            group.start_soon(changes.listen, _context(reader, 1), WANTED)
            group.start_soon(stalled_stream)
            await _subscribed(bus, 2)
            for index in range(LISTEN_BACKLOG + 1):
                await bus.publish(ResourcesListChanged() if index % 2 else PromptsListChanged())
            await ended.wait()  # the stream that does not read is ended: its handler returned
            assert bus.held == 1  # its subscription (and so its buffer) is gone; the reader's stays
            assert len(reader.frames) == 1 + LISTEN_BACKLOG + 1  # the acknowledgement and every event
            group.cancel_scope.cancel()
    dropped = [r.getMessage() for r in caplog.records if r.name == "guide" and "listen stream" in r.getMessage()]
    assert dropped == [f"listen stream 2 left {LISTEN_BACKLOG} events unread; it was dropped (the client may listen again)"]


async def test_one_stream_more_than_the_bound_is_refused_and_a_closed_one_frees_its_place(tmp_path):
    changes, bus = _changes(tmp_path)
    with anyio.fail_after(SAFETY_NET):
        async with anyio.create_task_group() as group:
            scopes = []
            for index in range(MAX_LISTEN_STREAMS):
                scope = anyio.CancelScope()
                scopes.append(scope)
                group.start_soon(_listen_within, scope, changes, index)
            await _subscribed(bus, MAX_LISTEN_STREAMS)
            with pytest.raises(MCPError) as refused:
                await changes.listen(_context(Reader(), 10_000, "10.9.9.9"), WANTED)
            assert refused.value.error.message == TOO_MANY_STREAMS
            assert bus.held == MAX_LISTEN_STREAMS  # the refused one never subscribed
            scopes[0].cancel()  # one client goes
            while bus.held == MAX_LISTEN_STREAMS:
                await anyio.sleep(0.01)
            group.start_soon(changes.listen, _context(Reader(), 10_001, "10.9.9.9"), WANTED)
            await _subscribed(bus, MAX_LISTEN_STREAMS)
            group.cancel_scope.cancel()


async def _listen_within(scope: anyio.CancelScope, changes: Modern, index: int) -> None:
    with scope:
        await changes.listen(_context(Reader(), index + 1, _address(index)), WANTED)


async def test_one_client_holds_at_most_its_share_and_another_still_listens(tmp_path):
    changes, bus = _changes(tmp_path)
    with anyio.fail_after(SAFETY_NET):
        async with anyio.create_task_group() as group:
            for index in range(LISTEN_SHARE):
                group.start_soon(changes.listen, _context(Reader(), index + 1, "10.0.0.1"), WANTED)
            await _subscribed(bus, LISTEN_SHARE)
            with pytest.raises(MCPError) as refused:
                await changes.listen(_context(Reader(), 1_000, "10.0.0.1"), WANTED)
            assert refused.value.error.message == TOO_MANY_OWNED
            group.start_soon(changes.listen, _context(Reader(), 1_001, "10.0.0.2"), WANTED)
            await _subscribed(bus, LISTEN_SHARE + 1)
            group.cancel_scope.cancel()


async def test_a_stream_without_an_event_for_the_idle_bound_is_ended_gracefully(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(listen_module, "LISTEN_IDLE", 0.3)
    caplog.set_level(logging.INFO, logger="guide")
    changes, bus = _changes(tmp_path)
    reader = Reader()
    with anyio.fail_after(SAFETY_NET):
        result = await changes.listen(_context(reader, 7, "10.0.0.1"), WANTED)
    assert result.meta is not None  # the graceful end: a result naming the subscription
    assert bus.held == 0 and changes.listen.count == 0  # its place is free again
    assert any("listen stream 7 had no event for 0.3 s; it was ended" in r.getMessage() for r in caplog.records)


class LegacyConnection:
    """A legacy session's connection as the legacy era tells it; `stalled` never takes a notification."""

    def __init__(self, stalled: bool) -> None:
        self.stalled = stalled
        self.told: list[str] = []

    async def send_resource_list_changed(self) -> None:
        await self._take("resources")

    async def send_prompt_list_changed(self) -> None:
        await self._take("prompts")

    async def send_tool_list_changed(self) -> None:
        await self._take("tools")

    async def _take(self, kind: str) -> None:
        if self.stalled:
            await anyio.sleep_forever()
        self.told.append(kind)


async def test_a_legacy_session_that_does_not_read_is_told_no_more_and_holds_nobody(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(legacy, "NOTIFY_TIMEOUT", 0.05)  # the stalled write never returns: any timeout ends it
    caplog.set_level(logging.WARNING, logger="guide")
    changes = Legacy()
    stalled, reading = LegacyConnection(stalled=True), LegacyConnection(stalled=False)
    changes.sessions.connections.update({stalled, reading})
    with anyio.fail_after(SAFETY_NET):
        await changes.announce()
        await changes.announce()
    assert reading.told == ["resources", "prompts", "tools", "resources", "prompts", "tools"]
    assert changes.sessions.connections == {reading}
    told_no_more = [r for r in caplog.records if r.name == "guide" and "told no more" in r.getMessage()]
    assert len(told_no_more) == 1
