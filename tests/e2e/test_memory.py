"""A long-running server does not accumulate objects: help, completions and listings leave nothing behind."""

import asyncio
import gc

import pytest
from e2e_support import read
from mcp_types import PromptReference

from guide.server import startup

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

WARM_UP = 200
REQUESTS = 2000
SLACK = 500
"""Objects the process may gain over 2,000 requests for reasons unrelated to them (caches that fill once, interned names)."""


async def _one_round(client, index: int) -> None:
    kind = index % 5
    if kind == 0:
        await read(client, "guide://_help")
    elif kind == 1:
        await client.complete(PromptReference(name="guide"), {"name": "command", "value": "_"})
    elif kind == 2:
        await client.list_resources()
    elif kind == 3:
        await client.list_prompts()
    else:
        await read(client, "guide://_help/review")


def _objects() -> int:
    """Every object the collector knows of, frozen ones included."""
    gc.collect()
    return len(gc.get_objects()) + gc.get_freeze_count()


async def test_requests_neither_grow_the_objects_nor_freeze_any(server, connect, monkeypatch):
    freezes = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(1) or real_freeze())
    started = asyncio.Event()
    real_report = startup.report_start

    async def report_start(docroot):
        await real_report(docroot)
        started.set()

    monkeypatch.setattr(startup, "report_start", report_start)
    async with connect(server) as client:
        for index in range(WARM_UP):
            await _one_round(client, index)
        # The start check (once, when the server is first calm) is not a request: let it finish first.
        await asyncio.wait_for(started.wait(), 120)
        before, frozen_before = _objects(), len(freezes)
        for index in range(REQUESTS):
            await _one_round(client, index)
        after = _objects()
    assert len(freezes) == frozen_before, "the collector was frozen while serving requests"
    assert after - before < SLACK, f"{after - before} more objects after {REQUESTS} requests"
