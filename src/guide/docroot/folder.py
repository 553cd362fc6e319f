"""The docroot folder as served: the build of its current snapshot, made anew after files change (C2).

The docroot is the real folder at the real path the server was started with.
When no real folder is there (it was moved away, deleted, or replaced by a
symlink, which is never followed), there is no docroot: every build fails with
`DocrootGone` until a folder is back at that path, and is then made from it.

A docroot named through a symlink at start (`current` -> `releases/b`, the
usual deployment) is the folder that path names now: when the link is switched
to another release, the docroot becomes the new release's real folder, with a
snapshot of its own. Only the path given is followed so: folder symlinks
inside the docroot are never followed (`guide.docroot.layout`).
"""

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from guide.docroot import files
from guide.docroot.built import Built
from guide.docroot.config import read_config
from guide.docroot.files import MAX_FILE_SIZE
from guide.docroot.layout import scan
from guide.docroot.snapshot import Snapshot, Source
from guide.docroot.store.disk import Store
from guide.docroot.store.parses import StoredParses
from guide.errors import UnavailableError

__all__ = ["GONE", "MAX_FILE_SIZE", "Docroot", "DocrootGone"]

GONE = "the docroot folder is gone (moved, deleted or replaced by a link); Guide serves it again once a folder is back in its place"
"""What every read says while there is no docroot, and what `/healthz` says."""
BUILD_ATTEMPTS = 3
"""Builds tried in a row while another folder keeps taking the docroot's place during the scan."""
log = logging.getLogger("guide")


class DocrootGone(UnavailableError):
    """No real folder is at the docroot's path: nothing can be served until one is back."""

    def __init__(self) -> None:
        super().__init__(GONE)


class Docroot:
    """A docroot folder; `build()` gives the build of its current snapshot, made anew after `invalidate()`.

    Files larger than `max_file_size` bytes are not served (see `guide.docroot.files`).
    Parses are kept between processes in `store` (None: nothing is kept; the commands
    give the store their settings choose). Nothing is read until asked: the first
    answer of a large docroot scans the folder and reads the few files it needs.
    """

    def __init__(self, root: Path, *, max_file_size: int = MAX_FILE_SIZE, store: Store | None = None):
        self.path = Path(os.path.abspath(root))
        """The docroot's path as given (made absolute): when it names the folder through a link, the link is followed each time."""
        self.root = self.path.resolve()
        """The real folder served now (another after a release link is switched)."""
        self.linked = self.root != self.path
        self.max_file_size = max_file_size
        self.store = store if store is not None else Store(None)
        self.parses = StoredParses(self.store, self.root)
        """Parsed frontmatter kept between processes (see `guide.docroot.store.parses`)."""
        self._current: Built | None = None
        self._last: Built | None = None
        self._edited: set[str] | None = set()
        self._lock = threading.Lock()
        """Guards the fields above; held only for moments, so `invalidate` never waits for a build."""
        self._building = threading.Lock()
        """Held while a snapshot is made: one at a time."""
        self._generation = 0
        self._folder = folder_identity(self.root)
        """The (device, inode) of the folder last seen at the docroot's path (None: gone)."""
        self.opened_ns = time.time_ns()
        """When this process began serving the docroot: anything it read, it read after this."""
        self.on_build: Callable[[float], None] | None = None
        """Told the seconds each new snapshot took to make (the server's metrics)."""

    def built(self) -> Built | None:
        """The build of the current snapshot if it is up to date, else None (never reads or builds anything)."""
        return self._current

    def build(self) -> Built:
        """The build of the current snapshot, made anew first if files changed since the last one (slow: never on the event loop)."""
        built = self._current
        if built is not None:
            return built
        with self._building:
            started = time.perf_counter()
            for _ in range(BUILD_ATTEMPTS):
                with self._lock:
                    if self._current is not None:
                        return self._current
                folder = self._present()
                with self._lock:
                    edited, self._edited, generation = self._edited, set(), self._generation
                    root, parses, last = self.root, self.parses, self._last
                built = Built(self._refresh(root, edited, last), limit=self.max_file_size, parses=parses, previous=last)
                if self._present() != folder:  # another folder took the path while it was scanned: scan again
                    continue
                with self._lock:
                    self._last = built
                    if generation == self._generation:  # else files changed meanwhile: the next call builds again
                        self._current = built
                if self.on_build is not None:
                    self.on_build(time.perf_counter() - started)
                return built
            raise DocrootGone()

    def folder(self) -> files.Identity | None:
        """The (device, inode) of the real folder at the docroot's path now; None when it is gone (a link there counts as gone).

        When this differs from the last look (the folder went, came back, or
        another took its place), the current snapshot is forgotten and one line
        logged. Looked at by every build, by the watcher and by the health probe.
        """
        real = Path(os.path.realpath(self.path)) if self.linked else self.root
        found = folder_identity(real)
        with self._lock:
            before, self._folder = self._folder, found
            moved = found is not None and real != self.root
            if moved:  # a release link switched: nothing of the old release's snapshot is carried over
                self.root, self.parses, self._last = real, StoredParses(self.store, real), None
        if found != before or moved:
            self.invalidate()
            if found is None:
                log.warning("the docroot folder %s is gone; reads fail until a folder is back in its place", self.path if self.linked else self.root)
            elif moved:
                log.warning("serving %s, the folder %s names now", self.root, self.path)
            else:
                log.warning("serving the docroot folder %s %s", self.root, "again" if before is None else "that took the old one's place")
        return found

    def invalidate(self, edited: Iterable[Path] | None = None) -> None:
        """Forget the current snapshot. `edited` names files changed in place; None means anything may have changed."""
        relative = None if edited is None else {_relative(self.root, path) for path in edited}
        with self._lock:
            if relative is None or None in relative or self._edited is None:
                self._edited = None
            else:
                self._edited.update(relative)
            self._current = None
            self._generation += 1

    def read_text(self, rel: str) -> str:
        """The text of a document or skill member, read now; `files.Refused` says why it cannot be."""
        return files.read_text(self.root, rel, self.max_file_size)

    def keep_parses(self, *, if_loaded: bool = False) -> None:
        """Save what was parsed since the last save for the next process (slow: never on the event loop).

        With `if_loaded`, only when the kept parses were loaded anyway (see `StoredParses.save`).
        """
        last = self._last
        self.parses.save(keep=set(last.snapshot.sources) if last is not None else None, if_loaded=if_loaded)

    def _present(self) -> files.Identity:
        """The docroot folder's identity; `DocrootGone` when no real folder is at its path."""
        found = self.folder()
        if found is None:
            raise DocrootGone()
        return found

    def _refresh(self, root: Path, edited: set[str] | None, last: Built | None) -> Snapshot:
        """Look again only at the edited files when nothing else changed; otherwise scan the folder `root`."""
        previous = last.snapshot if last is not None else None
        if previous is not None and edited is not None and edited <= previous.sources.keys():
            if all((root / rel).is_file() for rel in edited):
                sources = {**previous.sources, **{rel: _source(root, rel) for rel in edited}}
                return Snapshot(root, previous.config, previous.layout, sources, previous.config_problems)
        config, config_problems = read_config(root, self.max_file_size)
        layout = scan(root, self.max_file_size)
        sources = {rel: Source(rel, layout.stamps.get(rel), layout.identities.get(rel)) for rel in layout.with_frontmatter()}
        return Snapshot(root, config, layout, sources, tuple(config_problems))


def _source(root: Path, rel: str) -> Source:
    """A template file looked at again after an edit in place (gone since: a source without a stamp)."""
    try:
        status = os.stat(root / rel)
    except OSError:
        return Source(rel, None)  # the watcher reports it, and the next snapshot drops it
    return Source(rel, files.stamp(status))


def folder_identity(root: Path) -> files.Identity | None:
    """The (device, inode) of `root` if it is a real folder reached through no symlink (its real path is itself), else None."""
    try:
        status = os.lstat(root)
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode) or os.path.realpath(root) != os.fspath(root):
        return None
    return files.identity(status)


def _relative(root: Path, path: Path) -> str | None:
    text, prefix = os.fspath(path), os.path.join(root, "")
    if text.startswith(prefix) and os.sep + ".." not in text and not os.path.islink(text):
        return text[len(prefix):].replace(os.sep, "/")  # the watch names files under the real root: no need to resolve each
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None
