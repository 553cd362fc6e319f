"""Issue 10, item 1: one request never stalls the others.

Addresses and prompt text have a size bound with a clear error; resolving one is
linear in its length; whatever a read or listing has to read, parse, build or
render is done in a worker thread (a read answered from what is built already is
answered on the event loop: `guide.server.work`). The tests block one request inside that work and show that another
client is served meanwhile: were the work on the event loop, nothing else could
run until the block timed out. (Speed under load is measured in bench/, B8.)
"""

import asyncio
import shlex
import threading

import pytest
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st
from mcp import MCPError
from support.fuzzing import fuzz

from guide import address
from guide.docroot import folder as folder_module
from guide.docroot.built import Built
from guide.docroot.folder import Docroot
from guide.errors import InputError, NotFoundError
from guide.routes.lookup import AddressRead, PromptRead, resolve
from guide.server import provider as provider_module
from guide.server.app import create_server

BLOCK = 10.0
"""Seconds a blocked request waits to be released by the other client; reaching it means the loop was stalled."""
LONGEST = "guide://_help" + "/a" * ((address.MAX_LENGTH - len("guide://_help")) // 2)


@pytest.fixture
def server(root, project):
    return create_server(root, project, watch=False)


def test_the_longest_address_is_resolved_by_looking_up_few_prefixes(root, monkeypatch):
    asked = []
    real = Built.command
    monkeypatch.setattr(Built, "command", lambda self, name: asked.append(name) or real(self, name))
    assert len(LONGEST) <= address.MAX_LENGTH
    with pytest.raises(NotFoundError) as error:
        resolve(Docroot(root).build(), AddressRead(LONGEST))
    assert len(asked) <= 2  # `nested/deep` is the deepest name: no longer prefix is tried
    assert len(str(error.value)) < 200


@pytest.mark.parametrize("route", ["resource", "tool", "prompt", "command prompt"])
async def test_an_address_or_prompt_text_over_the_bound_is_one_clear_line(server, mode, route):
    text = "a" * (address.MAX_LENGTH + 1)
    async with Client(server, mode=mode) as client:
        if route == "tool":
            result = await client.call_tool("read_resource", {"uri": "guide://_" + text}, raise_on_error=False)
            assert result.is_error
            message = result.content[0].text
        else:
            with pytest.raises(MCPError) as error:
                if route == "resource":
                    await client.read_resource("guide://_" + text)
                elif route == "prompt":
                    await client.get_prompt("guide", {"command": "_" + text})
                else:
                    await client.get_prompt("nested.deep", {"name": text})
            message = error.value.error.message
    assert message.endswith(f"characters long; Guide reads at most {address.MAX_LENGTH}")
    assert len(message) < 200


def test_the_bound_holds_for_the_parsers_themselves():
    with pytest.raises(InputError):
        address.parse("guide://_" + "a" * address.MAX_LENGTH)
    with pytest.raises(InputError):
        address.parse_prompt("_" + "a" * address.MAX_LENGTH)
    assert address.parse(LONGEST).kind == "help"


def test_a_prompt_line_of_many_segments_is_resolved_quickly_to_a_clear_error(root):
    line = "_" + "a/" * (address.MAX_LENGTH // 2 - 1)
    with pytest.raises(NotFoundError) as error:
        resolve(Docroot(root).build(), PromptRead(line))
    assert len(str(error.value)) < 200


async def _served_while_blocked(server, mode, block_on, blocked_call, other_call) -> bool:
    """Start `blocked_call` (held inside its work until released), run `other_call`, release; say if it was released."""
    release, held = threading.Event(), threading.Event()
    outcome = []

    def hold():
        held.set()
        outcome.append(release.wait(timeout=BLOCK))

    block_on(hold)
    async with Client(server, mode=mode) as slow, Client(server, mode=mode) as fast:
        await other_call(fast)  # warm: the snapshot is built before the race starts
        task = asyncio.create_task(blocked_call(slow))
        while not held.is_set():
            await asyncio.sleep(0.01)
        await other_call(fast)
        release.set()
        await task
    return outcome == [True]


async def test_a_read_stuck_in_its_work_does_not_stall_another_client(server, mode, monkeypatch):
    def block_on(hold):
        real = folder_module.files.read_text

        def read_holding(root, rel, *args, **options):
            if rel == "docs/readme.md":
                hold()
            return real(root, rel, *args, **options)

        monkeypatch.setattr(folder_module.files, "read_text", read_holding)

    async def slow(client):
        assert (await client.read_resource("guide://docs/readme"))[0].text == "README\n"

    async def other(client):
        assert (await client.read_resource("guide://lang/python"))[0].text == "PYTHON\n"

    assert await _served_while_blocked(server, mode, block_on, slow, other)


async def test_a_listing_being_built_does_not_stall_another_client(server, mode, monkeypatch):
    def block_on(hold):
        real = provider_module.DocrootProvider._resources
        monkeypatch.setattr(provider_module.DocrootProvider, "_resources", lambda self, built: hold() or real(self, built))

    async def slow(client):
        assert len(await client.list_resources()) == 9

    async def other(client):
        assert (await client.read_resource("guide://lang/python"))[0].text == "PYTHON\n"

    assert await _served_while_blocked(server, mode, block_on, slow, other)


def test_invalidating_the_docroot_does_not_wait_for_a_snapshot_being_built(root, monkeypatch):
    release, held = threading.Event(), threading.Event()
    outcome = []
    real_scan = folder_module.scan

    def scan_holding(*args):
        held.set()
        outcome.append(release.wait(timeout=BLOCK))
        return real_scan(*args)

    monkeypatch.setattr(folder_module, "scan", scan_holding)
    docroot = Docroot(root)
    builder = threading.Thread(target=docroot.build)
    builder.start()
    assert held.wait(timeout=BLOCK)
    docroot.invalidate()  # the watcher does this on the event loop
    release.set()
    builder.join()
    assert outcome == [True]


@fuzz(300)
@given(text=st.text(alphabet=st.sampled_from(list("_:;ab/ \t\r\n\x0b\u00a0-='\"\\é")), max_size=40))
def test_fuzz_prompt_lines_split_as_shlex_does(text):
    try:
        expected = shlex.split(text)
    except ValueError:
        expected = None
    try:
        route = address.parse_prompt(text)
    except InputError:
        assert expected is None or not expected or expected[0][:1] not in address.PROMPT_PREFIXES or len(expected[0]) < 2
        return
    assert expected is not None
    assert route.tokens == tuple(expected[1:])
