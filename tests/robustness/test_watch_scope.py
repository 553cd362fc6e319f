"""Issue 25, findings 3 and 9: the watch sees exactly the folders the scan serves, and survives a folder it cannot read.

Before: the watch was one recursive watch of the docroot, which followed every
folder symlink it met, and was made on the event loop. A "diamond" of folders
linking twice to the next froze every answer for minutes right after the server
became healthy (a read timed out after 120 s); a link to a large tree made it
watch that whole tree. And a folder the server could not read ended the watch
for good ("edits now need a restart"), so edits anywhere were never served,
while the scan left the folder out without a word.

Each server here runs in its own process under an address-space ceiling
(`spawned.served`), so a watch that holds the interpreter or grows fails the
test instead of stalling it or the machine.
"""

import asyncio
import os
import subprocess
import sys

from fastmcp import Client
from mcp import MCPError
from support.files import write_files

from robustness.served import until
from robustness.spawned import inotify_watches, open_folder, served, unprivileged

READ_BOUND = 20.0
"""Seconds any one read may take: generous on a loaded machine; before the fix a read waited for the whole walk (over 120 s)."""
DIAMOND = 18
"""Folders in the diamond, each linking twice to the next: 2**18 paths through the links."""
BASE = {"_commands/hello.md": "---\ndescription: Hi.\n---\nHELLO\n", "notes.md": "NOTE first\n"}


def _diamond(root) -> None:
    for level in range(DIAMOND + 1):
        (root / f"d{level}").mkdir()
        (root / f"d{level}/page.md").write_text(f"page {level}\n", encoding="utf-8")
    for level in range(DIAMOND):
        for link in ("left", "right"):
            (root / f"d{level}/{link}").symlink_to(root / f"d{level + 1}", target_is_directory=True)


def _big_tree(folder, fan: int = 12, depth: int = 3) -> None:
    """A tree of fan + fan**2 + ... + fan**depth folders (1,884 by default), a page in each of the deepest."""
    level = [folder]
    for _ in range(depth):
        level = [parent / f"n{index}" for parent in level for index in range(fan)]
        for path in level:
            path.mkdir(parents=True)
    for path in level:
        (path / "deep.md").write_text("DEEP\n", encoding="utf-8")


async def _read(client, uri: str) -> str:
    try:
        return (await client.read_resource(uri))[0].text
    except MCPError as error:
        return f"error: {error.error.message}"


async def test_links_to_folders_are_neither_watched_nor_hold_the_server(tmp_path, mode):
    with open_folder() as base:
        root, project = write_files(base / "docroot", BASE), base / "project"
        project.mkdir()
        _diamond(root)
        _big_tree(base / "outside")
        (root / "big").symlink_to(base / "outside", target_is_directory=True)
        with served(root, project, tmp_path / "server.log") as (url, process):
            async with Client(url, mode=mode, timeout=READ_BOUND) as client:
                assert await _read(client, "guide://_hello") == "HELLO\n"  # the first answer: the watch begins now
                (root / "notes.md").write_text("NOTE edited\n", encoding="utf-8")
                await until(lambda: _is(_read(client, "guide://notes"), "NOTE edited\n"), "an edit in the docroot is served")
                assert (await _read(client, "guide://big/n0/n0/n0/deep")).startswith("error:")  # never served through the link

                (root / "added/inner").mkdir(parents=True)  # a folder made later is watched too
                (root / "added/inner/new.md").write_text("NEW\n", encoding="utf-8")
                await until(lambda: _is(_read(client, "guide://added/inner/new"), "NEW\n"), "a page in a new folder is served")
                (root / "added/inner/new.md").write_text("NEW edited\n", encoding="utf-8")
                await until(lambda: _is(_read(client, "guide://added/inner/new"), "NEW edited\n"), "an edit in the new folder is served")

                real_folders = sum(1 for _ in os.walk(root))  # os.walk follows no link
                assert inotify_watches(process.pid) == real_folders  # the scan's folders, not the 2**18 paths or the linked tree
            assert process.poll() is None, "the server ended under its address-space ceiling"


async def _is(text, expected: str) -> bool:
    return await text == expected


async def test_a_folder_the_server_cannot_read_is_named_once_and_edits_elsewhere_are_served(tmp_path, mode):
    # The tests run as root here, and root reads any folder: the server runs as an unprivileged user
    # (nobody), so that the folder's permissions stop it as they would a real deployment's server.
    with open_folder() as base:
        other = "_commands/open/other.md"
        root = write_files(base / "docroot", {**BASE, "locked/secret.md": "SECRET\n", other: "---\ndescription: Other.\n---\nOTHER\n"})
        (base / "project").mkdir()
        (root / "locked").chmod(0)
        log = tmp_path / "server.log"
        with served(root, base / "project", log, as_nobody=True) as (url, process):
            async with Client(url, mode=mode, timeout=READ_BOUND) as client:
                # Commands: a render is kept until the watch reports an edit, so only a live watch serves one.
                assert [await _read(client, "guide://_hello"), await _read(client, "guide://_open/other")] == ["HELLO\n", "OTHER\n"]
                await asyncio.sleep(3)  # the watch has begun and met the locked folder (before the fix: failed twice, for good)
                (root / "_commands/hello.md").write_text("---\ndescription: Hi.\n---\nHELLO edited\n", encoding="utf-8")
                await until(lambda: _is(_read(client, "guide://_hello"), "HELLO edited\n"), "an edit beside the locked folder is served")
                (root / other).write_text("---\ndescription: Other.\n---\nOTHER edited\n", encoding="utf-8")
                await until(lambda: _is(_read(client, "guide://_open/other"), "OTHER edited\n"), "an edit in another folder is served")
                assert (await _read(client, "guide://locked/secret")).startswith("error:")
                await asyncio.sleep(1)  # a few more turns of the watch: still one line
        text = log.read_text(errors="replace")
        named = [line for line in text.splitlines() if "cannot be read" in line]
        assert len(named) == 1 and " locked " in named[0] and str(base) not in named[0], text[-3000:]
        assert "Traceback" not in text and "need a restart" not in text, text[-3000:]


def test_guide_check_notes_a_folder_it_cannot_read(tmp_path):
    with open_folder() as base:
        root = write_files(base / "docroot", {**BASE, "locked/secret.md": "SECRET\n"})
        (root / "locked").chmod(0)
        done = subprocess.run([*unprivileged(), sys.executable, "-m", "guide", "check", str(root)], capture_output=True, text=True,
                              timeout=120, env={**os.environ, "GUIDE_NO_CACHE": "1"})
    assert "note: locked: the folder cannot be read (permission denied); its files are not served" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0
