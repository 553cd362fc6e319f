"""Where a request's work runs (issue 17): nothing on the event loop reads a file, scans, parses, builds or renders.

A read answered from what is built stays on the event loop; anything else goes
to a worker thread, once, and continues there from what is already resolved.
"""

import threading
from pathlib import Path

import pytest
from anyio import to_thread
from e2e_support import read
from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension
from mcp_types import PromptReference, ResourceTemplateReference

import guide.docroot.built as built_module
import guide.docroot.entrypoints as entrypoints_module
import guide.docroot.files as files_module
import guide.docroot.filework as filework_module
import guide.docroot.folder as folder_module
import guide.render as render_module
from bench.harness.docroot_gen import generate
from guide.server import work
from guide.server.app import create_server

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

RELEASE = "guide://_release?label=v1.2.0&notes=none"


class Hops:
    """Counts the calls handed to a worker thread."""

    def __init__(self):
        self.count = 0

    async def run_sync(self, fn, *args, **options):
        self.count += 1
        return await to_thread.run_sync(fn, *args, **options)


@pytest.fixture
def hops(monkeypatch) -> Hops:
    counter = Hops()
    monkeypatch.setattr(work, "to_thread", counter)
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


class Threads:
    """Records, for each instrumented build function, the threads it ran on."""

    def __init__(self):
        self.seen: dict[str, set[int]] = {}

    def wrap(self, monkeypatch, owner, name: str) -> None:
        real = getattr(owner, name)

        def recorded(*args, **kwargs):
            self.seen.setdefault(name, set()).add(threading.get_ident())
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, recorded)


@pytest.fixture
def large(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("large") / "docroot"
    generate(root, 2000)
    return root


async def test_17_nothing_is_built_read_parsed_or_rendered_on_the_event_loop_after_an_edit(large, mode, monkeypatch, tmp_path):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    server = create_server(large, project=tmp_path, watch=False)
    docroot = next(provider.docroot for provider in server.providers if hasattr(provider, "docroot"))
    threads = Threads()
    threads.wrap(monkeypatch, folder_module, "scan")  # a snapshot's scan
    threads.wrap(monkeypatch, built_module.Built, "__init__")  # a snapshot's build
    threads.wrap(monkeypatch, files_module, "read_text")  # any docroot file read
    threads.wrap(monkeypatch, filework_module, "split")  # a parse
    threads.wrap(monkeypatch, entrypoints_module, "build")  # an entrypoint declared
    threads.wrap(monkeypatch, render_module, "render")  # a render
    extensions = [SkillsClientExtension()] if mode == "2026-07-28" else []
    async with Client(server, mode="auto" if extensions else mode, extensions=extensions) as client:
        loop = threading.get_ident()
        await client.list_resources()  # everything built once
        command = large / "_commands" / "g000" / "c00001.md"
        for renamed in (False, True):
            if renamed:  # as an editor saves: a new file renamed over the old one (the watcher then reports no path)
                (large / "new.tmp").write_text(command.read_text() + "\nRenamed over.\n")
                (large / "new.tmp").replace(command)
            else:
                command.write_text(command.read_text() + "\nEdited.\n")
            docroot.invalidate(None if renamed else [command])
            threads.seen.clear()
            assert "Document 0" in await read(client, "guide://docs/d000/doc00000")
            assert "Release checklist" in await read(client, "guide://_static")
            if extensions:
                await client.list_skills()
            assert "guide://_rich" in await read(client, "guide://_help")
            await client.complete(PromptReference(name="guide"), {"name": "command", "value": "_st"})
            await client.complete(ResourceTemplateReference(uri="guide://_rich{?mode,depth}"), {"name": "mode", "value": ""})
            await client.list_resource_templates()
            await client.list_prompts()
            assert set(threads.seen) >= {"__init__", "read_text", "split", "render"} | ({"scan"} if renamed else set())
            on_loop = sorted(name for name, idents in threads.seen.items() if loop in idents)
            assert on_loop == [], f"built on the event loop: {on_loop}"
