"""Issue 19, finding 6 and the folder replaced by a symlink: reads, listings and `/healthz` agree on whether there is a docroot.

Before: after the docroot folder was swapped for another and then deleted, reads
kept serving the old content (from what was built, and the watch followed the
moved folder, not the path) while `/healthz` said 503. Now the docroot is the
real folder at its real path when the server started: while no folder is there
(moved, deleted, or replaced by a link), every read fails with one line saying
so, listings are empty and `/healthz` gives 503 with the same line; once a
folder is back at that path, all three serve it again. A link put in the
folder's place is never followed: nothing outside the original real docroot is
served, whatever the link points to.
"""

import re
import shutil

import pytest
from fastmcp import Client
from mcp import MCPError
from support.files import write_files

from guide.docroot.folder import GONE
from guide.server.app import create_server
from robustness.served import health, health_client, read_or_error, until

FIRST = {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO first\n", "notes.md": "NOTE first\n"}
SWAPPED = {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO swapped\n", "notes.md": "NOTE swapped\n"}
BACK = {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO back\n", "notes.md": "NOTE back\n"}
OUTSIDE = {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO outside\n", "notes.md": "NOTE outside\n", "secret.md": "SECRET\n"}
READS = ("guide://_hello", "guide://notes")


async def _texts(client) -> list[str]:
    return [await read_or_error(client, uri) for uri in READS]


async def _serving(client, files: dict[str, str]) -> bool:
    return await _texts(client) == [files["_commands/hello.md"].split("---\n")[-1], files["notes.md"]]


async def _gone(client) -> bool:
    return await _texts(client) == [f"error: {GONE}"] * len(READS)


async def test_a_swapped_then_deleted_folder_is_gone_for_reads_listings_and_health_alike(tmp_path, project, mode):
    root = write_files(tmp_path / "docroot", FIRST)
    server = create_server(root, project)
    async with Client(server, mode=mode) as client, health_client(server) as http:
        assert await _serving(client, FIRST)
        await until(lambda: _is(health(http), (200, "ok")), "health says ok")

        root.rename(tmp_path / "old")  # swapped: another folder takes the path
        write_files(tmp_path / "next", SWAPPED).rename(root)
        await until(lambda: _serving(client, SWAPPED), "the new folder is served")
        (root / "_commands/hello.md").write_text("HELLO edited\n", encoding="utf-8")  # a render is kept until an edit is seen
        await until(lambda: _is(read_or_error(client, "guide://_hello"), "HELLO edited\n"), "an edit in the new folder is served")
        shutil.rmtree(tmp_path / "old")

        shutil.rmtree(root)  # then deleted
        await until(lambda: _gone(client), "reads say the docroot is gone")
        assert await health(http) == (503, GONE)
        assert [str(r.uri) for r in await client.list_resources()] == []
        assert [p.name for p in await client.list_prompts()] == []
        tool = await client.call_tool("read_resource", {"uri": "guide://notes"}, raise_on_error=False)
        assert tool.is_error and tool.content[0].text == GONE
        with pytest.raises(MCPError, match=re.escape(GONE)):
            await client.get_prompt("guide", {"command": "_hello"})

        write_files(tmp_path / "again", BACK).rename(root)  # back: both recover
        await until(lambda: _serving(client, BACK), "the folder back is served")
        assert await health(http) == (200, "ok")
        assert "guide://_hello" in [str(r.uri) for r in await client.list_resources()]
        (root / "_commands/hello.md").write_text("HELLO edited again\n", encoding="utf-8")
        await until(lambda: _is(read_or_error(client, "guide://_hello"), "HELLO edited again\n"), "an edit in the folder back is served")


async def test_a_folder_replaced_by_a_link_serves_nothing_from_where_the_link_points(tmp_path, project, mode):
    root = write_files(tmp_path / "docroot", FIRST)
    outside = write_files(tmp_path / "outside", OUTSIDE)
    server = create_server(root, project)
    async with Client(server, mode=mode) as client, health_client(server) as http:
        assert await _serving(client, FIRST)
        await until(lambda: _is(health(http), (200, "ok")), "health says ok")

        root.rename(tmp_path / "moved")
        root.symlink_to(outside, target_is_directory=True)
        await until(lambda: _gone(client), "reads say the docroot is gone")
        assert await health(http) == (503, GONE)
        assert "SECRET" not in await read_or_error(client, "guide://secret")
        assert [str(r.uri) for r in await client.list_resources()] == []

        root.unlink()  # a real folder back at the path is served again
        (tmp_path / "moved").rename(root)
        await until(lambda: _serving(client, FIRST), "the real folder is served again")
        assert await health(http) == (200, "ok")


async def test_a_link_in_the_folders_place_at_start_of_a_build_is_never_scanned(tmp_path, project, mode):
    """Without the watcher: a build made after the swap (the first read of a new server) refuses the link too."""
    root = write_files(tmp_path / "docroot", FIRST)
    outside = write_files(tmp_path / "outside", OUTSIDE)
    server = create_server(root, project, watch=False)
    root.rename(tmp_path / "moved")
    root.symlink_to(outside, target_is_directory=True)
    async with Client(server, mode=mode) as client:
        assert await _gone(client)
        assert "SECRET" not in await read_or_error(client, "guide://secret")


async def _is(answer, expected) -> bool:
    return (await answer) == expected
