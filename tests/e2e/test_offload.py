"""Where a request's work runs: what must be read, parsed, built or rendered goes to a worker thread; a read answered from what is built stays on the event loop."""

import pytest
from anyio import to_thread
from e2e_support import read

from guide.docroot.ready import NotReady, only_ready, slow_work
from guide.docroot.sources import Source
from guide.server import offload

RELEASE = "guide://_release?label=v1.2.0&notes=none"


class Hops:
    """Counts the requests handed to a worker thread."""

    def __init__(self):
        self.count = 0

    async def run_sync(self, work, *args):
        self.count += 1
        return await to_thread.run_sync(work, *args)


@pytest.fixture
def hops(monkeypatch) -> Hops:
    counter = Hops()
    monkeypatch.setattr(offload, "to_thread", counter)
    return counter


async def test_a_first_read_works_in_a_thread_and_the_same_read_again_does_not(example_server, connect, hops):
    async with connect(example_server) as client:
        first = await read(client, RELEASE)
        assert hops.count >= 1
        before = hops.count
        assert await read(client, RELEASE) == first
        assert hops.count == before


async def test_a_document_is_read_from_its_file_in_a_thread_every_time(example_server, connect, hops):
    async with connect(example_server) as client:
        await read(client, "guide://lang/python")
        before = hops.count
        await read(client, "guide://lang/python")
        assert hops.count == before + 1


async def test_a_listing_is_built_in_a_thread_once(example_server, connect, hops):
    async with connect(example_server) as client:
        first = await client.list_resources()
        before = hops.count
        assert [r.uri for r in await client.list_resources()] == [r.uri for r in first]
        assert hops.count == before


def test_work_stopped_for_the_thread_leaves_nothing_half_done():
    reads = []
    source = Source("_commands/x.md", load=lambda: reads.append(1) or "---\ndescription: X.\n---\nbody\n")
    with only_ready(), pytest.raises(NotReady):
        _ = source.parsed
    assert reads == []
    assert source.parsed.meta == {"description": "X."}  # done in full outside
    slow_work()  # outside `only_ready`, slow work just goes on
