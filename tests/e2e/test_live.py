"""Connected clients learn when listings change (legacy notifications, 2026-07-28 listen streams) and get cache hints that are right."""

import asyncio
import logging
from contextlib import AsyncExitStack

import pytest
from e2e_support import eventually, read
from live_support import Recorder, connected

COMMAND = "---\ndescription: Added while connected.\n---\nNEW\n"


class Judgements:
    """Counts the bursts of edits the server has judged (announced or found unchanged), from its log."""

    def __init__(self, caplog) -> None:
        self.caplog = caplog

    def count(self) -> int:
        """How many bursts were judged so far."""
        return len([r for r in self.caplog.records if r.name == "guide" and ("listings changed" in r.message or "unchanged" in r.message)])

    async def after(self, count: int) -> None:
        """Wait until more than `count` bursts have been judged."""
        await eventually(lambda: asyncio.sleep(0, self.count() > count), timeout=30)


@pytest.fixture
def judged(caplog) -> Judgements:
    caplog.set_level(logging.DEBUG, logger="guide")
    return Judgements(caplog)


async def test_a_new_command_reaches_a_connected_client_and_the_next_listing(server, docroot, connect, mode):
    recorder = Recorder()
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, server, mode, recorder)
        before = {str(r.uri) for r in await client.list_resources()}
        docroot.write("_commands/added.md", COMMAND)
        await eventually(lambda: asyncio.sleep(0, recorder.resources and recorder.prompts), timeout=30)
        after = {str(r.uri) for r in await client.list_resources()}
        prompts = {p.name for p in await client.list_prompts()}
    assert after - before == {"guide://_added"} and "added" in prompts
    assert (recorder.resources, recorder.prompts) == (1, 1)


async def test_a_body_edit_sends_nothing(server, docroot, connect, mode, judged):
    recorder = Recorder()
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, server, mode, recorder)
        await client.list_resources()
        await judged.after(0)  # the server watches once it has answered
        before = judged.count()
        docroot.write("_commands/pair.md", (docroot.root / "_commands/pair.md").read_text().replace("PAIR", "DUO"))
        await judged.after(before)
        assert "DUO" in await read(client, "guide://_pair?alpha=a&zeta=z")
    assert (recorder.resources, recorder.prompts) == (0, 0)


async def test_five_hundred_files_at_once_give_one_notification_per_kind(server, docroot, connect, mode, judged):
    recorder = Recorder()
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, server, mode, recorder)
        await client.list_resources()
        await judged.after(0)  # the server watches once it has answered
        before = judged.count()
        for index in range(500):
            docroot.write(f"notes/n{index:03}.md", f"note {index}\n")
        await judged.after(before)
        # Any second announcement of the burst would arrive before the next edit is judged.
        before = judged.count()
        docroot.write("_commands/pair.md", (docroot.root / "_commands/pair.md").read_text() + "\n")
        await judged.after(before)
        listed = await client.list_resources()
    assert (recorder.resources, recorder.prompts) == (1, 1)
    assert len([r for r in listed if str(r.uri).startswith("guide://notes/")]) == 500


async def test_cache_hints(example_server, connect, mode):
    """On 2026-07-28 listings and content that never asks carry the TTL; every entrypoint read carries 0."""
    if mode != "2026-07-28":
        pytest.skip("cache hints exist only on 2026-07-28 (legacy wires drop them)")
    async with connect(example_server) as client:
        document = await client.read_resource_mcp("guide://lang/python")
        member = await client.read_resource_mcp("guide://$workflow-review/checklist.md")
        helped = await client.read_resource_mcp("guide://_help")
        listings = [await client.list_resources_mcp(), await client.list_resource_templates_mcp(), await client.list_prompts_mcp()]
        entrypoint = await client.read_resource_mcp("guide://_review?mode=uncommitted&depth=quick")  # completes without asking
    for result in (document, member, helped, *listings):
        assert (result.ttl_ms, result.cache_scope) == (5000, "private")
    assert (entrypoint.ttl_ms, entrypoint.cache_scope) == (0, "private") and "uncommitted" in entrypoint.contents[0].text
