"""A file-system watch of exactly the folders the scan walks, each on its own: never through a folder symlink (C2).

A recursive watch walks every folder below the one it is given and follows the
folder symlinks it meets: a few links to each other made it walk millions of
paths, and a link to a system folder made it watch that whole tree, while the
scan served none of it. So Guide walks the docroot by the scan's own rule
(`layout.folders`) and watches each folder it found, without recursion. A
folder made, removed, renamed or changed in its permissions later shows as an
event in its parent's watch (or its own); the watch is then out of date
(`outgrown`) and its owner makes a new one.

A folder that cannot be read is not watched; `unreadable` names it. Making a
watch walks the folder tree: slow for a large docroot, so never on the event loop.
The watch library holds the interpreter lock while it sets up its watches (about
10 µs a folder, 0.2 ms when polling, which looks at every file), so a large
docroot's watch is made of several engines of a bounded number of folders each:
the event loop runs between them.
"""

import os
import stat
import time
from pathlib import Path

from watchfiles import Change, DefaultFilter

# The engine under `watchfiles.watch`/`awatch`, used directly so that it is made in the caller's thread:
# `awatch` makes it on the event loop, where walking a large tree held every other answer.
from watchfiles._rust_notify import RustNotify

from guide.docroot.layout import folders

POLL_MS = 300
"""How often a polling watch (when the system refuses file-system events) looks at the files, in milliseconds."""
CHUNK = 200
"""The most folders one polling watch engine takes: what it holds the interpreter lock for while it is made stays short."""
EVENTS_CHUNK = 2000
"""The same for an engine of file-system events, about 20 times quicker to set up per folder: fewer engines to ask in turn."""
_IGNORED = DefaultFilter()
"""Editors' swap and backup files and the like: their events are not edits of the docroot."""


class FolderWatch:
    """A watch of the folders the scan walks under the real folder `root`; `polling` looks at files instead of asking the system."""

    def __init__(self, root: Path, *, polling: bool = False) -> None:
        self.root = root
        walked, self.unreadable = folders(root)
        """The folders found that cannot be read (relative to the docroot): not watched."""
        self.folders = {os.path.join(root, *rel.split("/")) if rel else os.fspath(root) for rel in walked}
        # Permission errors are passed over: a folder whose permissions change between the walk and here is
        # seen by its parent's watch, which makes the watch outgrown.
        ordered, size = sorted(self.folders), CHUNK if polling else EVENTS_CHUNK
        self._engines = [RustNotify(ordered[at:at + size], False, polling, POLL_MS, False, True) for at in range(0, len(ordered), size)]

    def changes(self, debounce_ms: int, step_ms: int, timeout_ms: int, stop=None) -> set[tuple[Change, str]] | None:
        """The next batch of changes: empty after `timeout_ms` without one, None once `stop` is set (waits: never on the event loop).

        Ctrl-C while waiting (in the main thread) raises `KeyboardInterrupt`.
        """
        if len(self._engines) == 1:
            return _batch(self._engines[0].watch(debounce_ms, step_ms, timeout_ms, stop))
        if not self._engines:  # not even the docroot could be read: nothing to wait for but the time
            time.sleep(timeout_ms / 1000)
            return None if stop is not None and stop.is_set() else set()
        # Several engines: each is asked in turn for what it saw in one step, until one saw something.
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            for engine in self._engines:
                raw = engine.watch(debounce_ms, step_ms, step_ms, stop)
                if raw != "timeout":
                    return _batch(raw)
            if time.monotonic() >= deadline:
                return set()

    def outgrown(self, changes: set[tuple[Change, str]]) -> bool:
        """Whether `changes` made, removed or changed a folder: this watch no longer covers the folders as they are."""
        return any(path in self.folders or _is_real_folder(path) for _, path in changes)

    def close(self) -> None:
        """Stop watching."""
        for engine in self._engines:
            engine.close()


def _batch(raw) -> set[tuple[Change, str]] | None:
    """What one engine's answer means: changes (editors' scratch files left out), none yet, or stop."""
    if raw == "stop":
        return None
    if raw == "signal":
        raise KeyboardInterrupt
    if raw == "timeout":
        return set()
    return {(Change(change), path) for change, path in raw if _IGNORED(Change(change), path)}


def _is_real_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
