"""Guide's one middleware (`guide.server.hooks`): a read passes through one Guide layer, and each part sees its own methods only."""

import asyncio
from types import SimpleNamespace

import pytest

from guide.server.app import create_server
from guide.server.hooks import Hooks


class Tagging:
    """A part that appends its tag to the answer of its methods."""

    def __init__(self, tag: str, methods: tuple[str, ...]):
        self.tag = tag
        self.methods = methods

    async def answered(self, context, result):
        return [*result, self.tag]


async def _answer(context):
    return []


def _context(method: str) -> SimpleNamespace:
    return SimpleNamespace(method=method, type="request")


def test_a_server_has_one_guide_middleware(tmp_path):
    server = create_server(tmp_path, tmp_path, watch=False)
    guide_layers = [layer for layer in server.middleware if type(layer).__module__.startswith("guide.")]
    assert [type(layer) for layer in guide_layers] == [Hooks]
    hooks = guide_layers[0]
    assert Hooks.of(server) is hooks
    assert {type(part).__name__ for part in hooks.parts("tools/list")} == {"Catalog", "ForAppClients"}
    assert {type(part).__name__ for part in hooks.parts("initialize")} == {"Catalog", "LegacySessions"}
    assert [type(part).__name__ for part in hooks.parts("resources/list")] == ["ForAppClients", "ListingSizes"]
    assert hooks.parts("resources/read") == ()


async def test_a_part_sees_only_its_methods_and_a_later_part_sees_the_answer_first():
    hooks = Hooks()
    hooks.add(Tagging("outer", ("tools/list",)))
    hooks.add(Tagging("inner", ("tools/list", "prompts/list")))
    assert await hooks(_context("tools/list"), _answer) == ["inner", "outer"]
    assert await hooks(_context("prompts/list"), _answer) == ["inner"]
    assert await hooks(_context("resources/read"), _answer) == []


async def test_a_removed_part_sees_nothing():
    hooks = Hooks()
    part = Tagging("gone", ("tools/list",))
    hooks.add(part)
    hooks.remove(part)
    assert await hooks(_context("tools/list"), _answer) == []


class Watching:
    def __init__(self):
        self.seen: list[tuple[str, str]] = []

    def began(self, context):
        self.seen.append(("began", context.method))

    def ended(self, context):
        self.seen.append(("ended", context.method))


async def test_a_watcher_sees_each_request_end_even_when_it_fails_or_it_stopped_watching_meanwhile():
    hooks = Hooks()
    watcher = Watching()
    hooks.watch(watcher)

    async def failing(context):
        raise ValueError("no")

    with pytest.raises(ValueError):
        await hooks(_context("resources/read"), failing)
    release = asyncio.Event()

    async def waiting(context):
        await release.wait()
        return []

    in_hand = asyncio.create_task(hooks(_context("tools/list"), waiting))
    await asyncio.sleep(0)
    hooks.unwatch(watcher)
    release.set()
    await in_hand
    await hooks(_context("prompts/list"), _answer)
    assert watcher.seen == [("began", "resources/read"), ("ended", "resources/read"), ("began", "tools/list"), ("ended", "tools/list")]
