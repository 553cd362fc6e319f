"""Issue 25, finding 11 (third part): a docroot given as a release link follows the link when it is switched.

The usual deployment: `current` -> `releases/b`, then `current` replaced at once
by a link to `releases/c`. Before, the server resolved `current` once, at start,
and kept serving release b (health 200) for as long as it ran. Now the new
release is served, and connected clients are told their listings changed. A
folder symlink *inside* the release stays refused, as it always was.
"""

import asyncio
import os
from contextlib import AsyncExitStack

from e2e_support import eventually
from live_support import Recorder, connected
from mcp import MCPError
from support.files import write_files

from guide.server.app import create_server

HELLO = "---\ndescription: Hi.\n---\nHELLO {}\n"
SETTLE = 30.0
"""Seconds a change may take to be served: a net for a stuck watch, not a measurement."""


async def _read(client, uri: str) -> str:
    try:
        return (await client.read_resource(uri))[0].text
    except MCPError as error:
        return f"error: {error.error.message}"


def _switch(link, target: str) -> None:
    """Point `link` at `target` in one step, as a deployment does (a new link renamed over the old one)."""
    fresh = link.with_name(link.name + ".new")
    fresh.symlink_to(target, target_is_directory=True)
    os.replace(fresh, link)


async def test_a_switched_release_link_is_served_and_announced_while_links_inside_stay_refused(tmp_path, connect, mode):
    releases = tmp_path / "releases"
    write_files(releases / "b", {"_commands/hello.md": HELLO.format("b"), "sub/page.md": "PAGE b\n"})
    write_files(releases / "c", {"_commands/hello.md": HELLO.format("c"), "_commands/fresh.md": HELLO.format("fresh"),
                                 "sub/page.md": "PAGE c\n"})
    write_files(tmp_path / "outside", {"page.md": "OUTSIDE\n"})
    project, current = tmp_path / "project", tmp_path / "current"
    project.mkdir()
    current.symlink_to("releases/b", target_is_directory=True)
    recorder = Recorder()
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, create_server(current, project), mode, recorder)
        assert [await _read(client, "guide://_hello"), await _read(client, "guide://sub/page")] == ["HELLO b\n", "PAGE b\n"]
        await asyncio.sleep(1)  # the watch of release b has begun

        _switch(current, "releases/c")
        await eventually(lambda: _is(_read(client, "guide://_hello"), "HELLO c\n"), timeout=SETTLE)
        await eventually(lambda: asyncio.sleep(0, recorder.resources >= 1 and recorder.prompts >= 1), timeout=SETTLE)
        assert "guide://_fresh" in {str(resource.uri) for resource in await client.list_resources()}
        assert await _read(client, "guide://sub/page") == "PAGE c\n"

        (releases / "c/_commands/hello.md").write_text(HELLO.format("c edited"), encoding="utf-8")  # the new release is watched
        await eventually(lambda: _is(_read(client, "guide://_hello"), "HELLO c edited\n"), timeout=SETTLE)
        (releases / "b/_commands/hello.md").write_text(HELLO.format("b edited"), encoding="utf-8")  # the old one no longer matters

        (releases / "c/sub").rename(releases / "c/sub-old")  # a folder inside the release becomes a link: refused
        (releases / "c/sub").symlink_to(tmp_path / "outside", target_is_directory=True)
        await eventually(lambda: _starts(_read(client, "guide://sub/page"), "error:"), timeout=SETTLE)
        await asyncio.sleep(1)
        assert (await _read(client, "guide://sub/page")).startswith("error:")
        assert await _read(client, "guide://_hello") == "HELLO c edited\n"


async def _is(text, expected: str) -> bool:
    return await text == expected


async def _starts(text, prefix: str) -> bool:
    return (await text).startswith(prefix)
