"""The docroot folder as served: a snapshot refreshed after files change, and the project's phase (C2, C10)."""

import gc
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from guide.docroot import files
from guide.docroot.caches import PerSnapshot
from guide.docroot.config import read_config, state_path
from guide.docroot.files import MAX_FILE_SIZE
from guide.docroot.layout import scan
from guide.docroot.parse_cache import ParseCache
from guide.docroot.phase import PhaseFile
from guide.docroot.ready import slow_work
from guide.docroot.snapshot import Snapshot
from guide.docroot.sources import Source

RENDER_CACHE_SIZE = 1024
__all__ = ["MAX_FILE_SIZE", "Docroot"]


class Docroot:
    """A docroot folder; `snapshot()` gives the current view, refreshed after `invalidate()`.

    Files larger than `max_file_size` bytes are not served (see `guide.docroot.files`).
    A template file is read when something first needs its text, not when the
    folder is scanned: the first answer of a large docroot reads a few files.
    """

    def __init__(self, root: Path, project: Path | None = None, *, max_file_size: int = MAX_FILE_SIZE, cache: ParseCache | None = None):
        self.root = Path(root).resolve()
        self.project = Path(project or os.getcwd()).resolve()
        self.max_file_size = max_file_size
        self.cache = cache if cache is not None else ParseCache.for_docroot(self.root)
        """Parsed frontmatter kept between processes (see `guide.docroot.parse_cache`)."""
        self.renders: PerSnapshot[str] = PerSnapshot(RENDER_CACHE_SIZE)
        """Rendered texts of the current snapshot: the same inputs render the same text until a file changes."""
        self._files: dict[str, tuple[tuple[int, int], Source]] = {}
        self._snapshot: Snapshot | None = None
        self._edited: set[str] | None = set()
        self._last: Snapshot | None = None
        self._phase = PhaseFile(None)
        self._phase_config: object = None
        self._lock = threading.Lock()
        """Guards the fields above; held only for moments, so `invalidate` never waits for a build."""
        self._building = threading.Lock()
        """Held while a snapshot is built: one build at a time."""
        self._generation = 0

    def snapshot(self) -> Snapshot:
        """The current view of the docroot, refreshed if files changed since the last one."""
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot
        slow_work()
        with self._building:
            with self._lock:
                if self._snapshot is not None:
                    return self._snapshot
                edited, self._edited, generation = self._edited, set(), self._generation
            built = self._refresh(edited)
            with self._lock:
                if generation == self._generation:  # else files changed meanwhile: the next call builds again
                    self._snapshot = built
            return built

    def invalidate(self, edited: Iterable[Path] | None = None) -> None:
        """Forget the current view. `edited` names files changed in place; None means anything may have changed."""
        relative = None if edited is None else {_relative(self.root, path) for path in edited}
        with self._lock:
            if relative is None or None in relative or self._edited is None:
                self._edited = None
            else:
                self._edited.update(relative)
            self._snapshot = None
            self._generation += 1

    def read_text(self, path: Path) -> str:
        """The text of a document or skill member the current snapshot lists; `files.Refused` says why not."""
        slow_work()
        return files.read_text(self.root, path.relative_to(self.root).as_posix(), self.max_file_size)

    def active_phase(self) -> str | None:
        """The workflow phase the project is in now (C10); the state file is re-read whenever it changes."""
        config = self.snapshot().config
        if config is not self._phase_config:
            self._phase, self._phase_config = PhaseFile(state_path(config, self.project)), config
        return self._phase.phase()

    def remember_parses(self, *, if_loaded: bool = False) -> None:
        """Save what was parsed since the last save into the parse cache, for the next process (slow: not on a request).

        With `if_loaded`, only when the stored parses were loaded anyway (see `ParseCache.save`).
        """
        last = self._last
        self.cache.save(keep=set(last.sources) if last is not None else None, if_loaded=if_loaded)

    def _refresh(self, edited: set[str] | None) -> Snapshot:
        """Re-read only the edited files when nothing else changed; otherwise rescan the folder."""
        previous = self._last
        gc.unfreeze()  # what the old snapshot's bulk builds froze may be collected again
        if previous is not None and edited is not None and edited <= previous.sources.keys():
            if all((self.root / rel).is_file() for rel in edited):
                sources = {**previous.sources, **{rel: self._read(rel, force=True) for rel in edited}}
                self._last = Snapshot(self.root, previous.config, previous.layout, sources, previous.config_problems)
                return self._last
        self._last = self._build()
        return self._last

    def _build(self) -> Snapshot:
        config, config_problems = read_config(self.root, self.max_file_size)
        layout = scan(self.root, self.max_file_size)
        templates = [*layout.commands.values(), *layout.skills.values(), *layout.partials.values()]
        sources = {rel: self._read(rel, stamp=layout.stamps.get(rel), identity=layout.identities.get(rel)) for rel in templates}
        self._files = {rel: self._files[rel] for rel in sources if rel in self._files}
        return Snapshot(self.root, config, layout, sources, tuple(config_problems))

    def _read(self, rel: str, force: bool = False, stamp: tuple[int, int] | None = None, identity: files.Identity | None = None) -> Source:
        """The source of one template file, reused while its stamp is unchanged (`stamp`, `identity`: as the scan just found them)."""
        if stamp is None:
            try:
                status = (self.root / rel).stat()
            except OSError:
                return Source.unread(rel, "file is gone")  # since the scan: the watcher reports it and the next view drops it
            stamp = (status.st_mtime_ns, status.st_size)
        cached = self._files.get(rel)
        if cached and cached[0] == stamp and not force:
            return cached[1]
        source = Source(rel, stamp=stamp, cache=self.cache, load=self._loader(rel, identity))
        self._files[rel] = (stamp, source)
        return source

    def _loader(self, rel: str, identity: files.Identity | None) -> Callable[[], str]:
        """Reads one template file when its text is first needed (`files.Refused` says why it cannot be)."""
        return lambda: files.read_text(self.root, rel, self.max_file_size, encoding="utf-8-sig", identity=identity)


def _relative(root: Path, path: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None
