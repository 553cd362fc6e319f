"""Start-up work waits for the first answer, and the start check also for a calm moment, so neither competes with a client's first requests."""

import asyncio
from types import SimpleNamespace

from fastmcp import Client
from support.files import write_files

from guide.server.app import create_server
from guide.server.eras import Eras
from guide.server.hooks import Hooks
from guide.server.startup import FirstAnswer

LONG = 60.0  # bounds that no test reaches: each test ends on what the server does, never on a clock


async def _request(first: FirstAnswer, method: str, release: asyncio.Event) -> None:
    """One request through Guide's middleware with `first` watching it, answered once `release` is set."""
    async def call_next(context):
        await release.wait()

    hooks = Hooks()
    hooks.watch(first)
    await hooks(SimpleNamespace(method=method, type="notification" if method.startswith("notifications/") else "request"), call_next)


def _released() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


async def test_without_any_request_the_work_starts_after_the_grace():
    await asyncio.wait_for(FirstAnswer().wait(0.01), LONG)


async def test_a_handshake_is_not_an_answer_but_any_other_request_is():
    first = FirstAnswer()
    await _request(first, "initialize", _released())
    assert not first.answered.is_set()
    await _request(first, "resources/list", _released())
    await asyncio.wait_for(first.wait(LONG), LONG)


async def test_a_notification_is_not_an_answer():
    first = FirstAnswer()
    await _request(first, "notifications/initialized", _released())
    assert not first.answered.is_set()


async def test_a_legacy_client_that_has_only_connected_has_had_no_answer_and_its_first_listing_is_one(tmp_path):
    """A legacy handshake ends with `notifications/initialized`: counted as an answer, it started the watch (and a new build)
    while the client's first listing was still at work on the build it began with (issue 25, finding 10's setting)."""
    root = write_files(tmp_path / "docroot", {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO\n"})
    server = create_server(root, tmp_path)
    first = next(watcher for watcher in Hooks.of(server).watchers if isinstance(watcher, FirstAnswer))
    async with Client(server, mode="legacy") as client:
        await client.ping()  # answered after the notification that ended the handshake was handled
        assert not first.answered.is_set()
        await client.list_resources()
        assert first.answered.is_set()


async def test_the_check_waits_while_a_request_is_in_hand_and_starts_once_all_are_answered():
    first = FirstAnswer()
    listing = asyncio.Event()
    await _request(first, "resources/list", _released())
    busy = asyncio.create_task(_request(first, "resources/templates/list", listing))
    calm = asyncio.create_task(first.calm(0.01, LONG))
    for _ in range(20):
        await asyncio.sleep(0.01)
        assert not calm.done(), "the start check began while a request was in hand"
    listing.set()
    await busy
    await asyncio.wait_for(calm, LONG)


async def test_a_listen_stream_left_open_does_not_hold_the_check_back():
    first = FirstAnswer(Eras().long_lived())
    stream = asyncio.Event()
    listening = asyncio.create_task(_request(first, "subscriptions/listen", stream))
    await asyncio.sleep(0)
    await asyncio.wait_for(first.calm(0.01, LONG), LONG)
    stream.set()
    await listening


async def test_a_server_kept_busy_starts_the_check_after_the_longest_wait():
    first = FirstAnswer()
    never = asyncio.Event()
    busy = asyncio.create_task(_request(first, "resources/read", never))
    await asyncio.sleep(0)
    await asyncio.wait_for(first.calm(0.01, 0.05), LONG)
    never.set()
    await busy
