"""The docroot as served: an immutable snapshot, refreshed when files change (C2)."""

import gc
import os
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from guide.docroot import entrypoints
from guide.docroot.config import Config, read_config, read_phase, state_path
from guide.docroot.entrypoints import Entrypoint, Kind, Source
from guide.docroot.frontmatter import FrontmatterError
from guide.docroot.layout import Layout, scan
from guide.errors import Problem

REQUIRES = "requires-"
RENDER_CACHE_SIZE = 1024


@dataclass
class Snapshot:
    """One consistent view of the docroot; files are parsed and entrypoints built on first use."""

    root: Path
    project: Path
    config: Config
    layout: Layout
    sources: dict[str, Source]
    config_problems: list[Problem]
    _built: dict[tuple[Kind, str], Entrypoint] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _rendered: dict[Hashable, str] = field(default_factory=dict)
    _phase: tuple[tuple[int, int], str | None] | None = None

    def entrypoint(self, kind: Kind, name: str) -> Entrypoint:
        """The built entrypoint of that kind and name (which must exist in the layout)."""
        key = (kind, name)
        if key not in self._built:
            built = entrypoints.build(kind, name, self.sources[self._table(kind)[name]], self.partials, self.config)
            with self._lock:
                self._built.setdefault(key, built)
        return self._built[key]

    def command(self, name: str) -> Entrypoint | None:
        """The command answering to a name or alias, if it applies to this configuration."""
        name = name if name in self.layout.commands else self.aliases.get(name, name)
        return self.entrypoint("command", name) if self._applies("command", name) else None

    def skill(self, name: str) -> Entrypoint | None:
        """The skill of that name, if it applies to this configuration."""
        return self.entrypoint("skill", name) if self._applies("skill", name) else None

    def commands(self) -> list[Entrypoint]:
        """Every command that applies, sorted by name."""
        with _bulk():
            return [self.entrypoint("command", name) for name in sorted(self.layout.commands) if self._applies("command", name)]

    def skills(self) -> list[Entrypoint]:
        """Every skill that applies, sorted by name."""
        with _bulk():
            return [self.entrypoint("skill", name) for name in sorted(self.layout.skills) if self._applies("skill", name)]

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Each alias of an applying command, mapped to the command's name (found on first need)."""
        found: dict[str, str] = {}
        for name, rel in sorted(self.layout.commands.items()):
            source = self.sources[rel]
            if not source.may_mention("aliases") or not self._applies("command", name):
                continue
            aliases = source.parsed.meta.get("aliases") if not isinstance(source.parsed, FrontmatterError) else None
            for alias in aliases if isinstance(aliases, list) else ():
                if isinstance(alias, str) and alias not in self.layout.commands:
                    found.setdefault(alias, name)
        return found

    @cached_property
    def _state_path(self) -> Path | None:
        return state_path(self.config, self.project)

    @cached_property
    def partials(self) -> dict[str, Source]:
        """Every partial by name, as read."""
        return {name: self.sources[rel] for name, rel in self.layout.partials.items()}

    @cached_property
    def partial_bodies(self) -> dict[str, str]:
        """The body of each partial whose `requires-*` hold, for `{{>name}}` (C9)."""
        bodies = {}
        for name, source in self.partials.items():
            if not isinstance(source.parsed, FrontmatterError) and self.config.allows(source.parsed.meta):
                bodies[name] = source.parsed.body
        return bodies

    def member(self, skill: str, member: str) -> Path | None:
        """The file of a skill member, if the skill applies and has it."""
        rel = self.layout.members.get((skill, member))
        return self.root / rel if rel and self.skill(skill) else None

    def document(self, path: str) -> Path | None:
        """The file of a document addressed by its path without extension."""
        rel = self.layout.documents.get(path)
        return self.root / rel if rel else None

    def active_phase(self) -> str | None:
        """The workflow phase the project is in now; the state file is re-read whenever it changes."""
        path = self._state_path
        if path is None:
            return None
        try:
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            return None
        if self._phase is None or self._phase[0] != stamp:
            self._phase = (stamp, read_phase(path))
        return self._phase[1]

    def remember(self, key: Hashable, make: Callable[[], str]) -> str:
        """A rendered text kept for this snapshot: the same inputs render the same text until a file changes."""
        text = self._rendered.get(key)
        if text is None:
            if len(self._rendered) >= RENDER_CACHE_SIZE:
                self._rendered.pop(next(iter(self._rendered)))
            text = self._rendered[key] = make()
        return text

    def problems(self) -> list[Problem]:
        """Every authoring problem of the docroot: config, layout, partials and entrypoints."""
        found = list(self.config_problems) + list(self.layout.problems)
        with _bulk():
            for source in self.partials.values():
                found += entrypoints.partial_problems(source, self.config)
            for kind in ("command", "skill"):
                for name in self._table(kind):
                    found += self.entrypoint(kind, name).problems
        return sorted(set(found), key=lambda p: (p.path, p.line or 0, p.message))

    def _table(self, kind: Kind) -> dict[str, str]:
        return self.layout.commands if kind == "command" else self.layout.skills

    def _applies(self, kind: Kind, name: str) -> bool:
        rel = self._table(kind).get(name)
        if rel is None:
            return False
        source = self.sources[rel]
        if not source.may_mention(REQUIRES) or isinstance(source.parsed, FrontmatterError):
            return True
        return self.config.allows(source.parsed.meta)


class Docroot:
    """A docroot folder; `snapshot()` gives the current view, refreshed after `invalidate()`."""

    def __init__(self, root: Path, project: Path | None = None):
        self.root = Path(root).resolve()
        self.project = Path(project or os.getcwd()).resolve()
        self._cache: dict[str, tuple[tuple[int, int], Source]] = {}
        self._snapshot: Snapshot | None = None
        self._edited: set[str] | None = set()
        self._last: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self) -> Snapshot:
        """The current view of the docroot, refreshed if files changed since the last one."""
        snapshot = self._snapshot
        if snapshot is None:
            with self._lock:
                if self._snapshot is None:
                    self._snapshot = self._refresh()
                snapshot = self._snapshot
        return snapshot

    def invalidate(self, edited: Iterable[Path] | None = None) -> None:
        """Forget the current view. `edited` names files changed in place; None means anything may have changed."""
        with self._lock:
            relative = None if edited is None else {_relative(self.root, path) for path in edited}
            if relative is None or None in relative or self._edited is None:
                self._edited = None
            else:
                self._edited.update(relative)
            self._snapshot = None

    def _refresh(self) -> Snapshot:
        """Re-read only the edited files when nothing else changed; otherwise rescan the folder."""
        previous, edited = self._last, self._edited
        gc.unfreeze()  # what `_bulk` froze for the old snapshot may be collected again
        self._edited = set()
        if previous is not None and edited is not None and edited <= previous.sources.keys():
            if all((self.root / rel).is_file() for rel in edited):
                sources = {**previous.sources, **{rel: self._read(rel, force=True) for rel in edited}}
                self._last = replace(previous, sources=sources, _built={}, _lock=threading.Lock(), _rendered={}, _phase=None)
                return self._last
        self._last = self._build()
        return self._last

    def _build(self) -> Snapshot:
        config, config_problems = read_config(self.root)
        layout = scan(self.root)
        templates = [*layout.commands.values(), *layout.skills.values(), *layout.partials.values()]
        sources = {rel: self._read(rel) for rel in templates}
        self._cache = {rel: self._cache[rel] for rel in sources if rel in self._cache}
        return Snapshot(self.root, self.project, config, layout, sources, config_problems)

    def _read(self, rel: str, force: bool = False) -> Source:
        path = self.root / rel
        try:
            stat = path.stat()
        except OSError:
            return Source(rel, None)  # gone since the scan: the watcher reports it and the next view drops it
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(rel)
        if cached and cached[0] == stamp and not force:
            return cached[1]
        try:
            text: str | None = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            text = None
        source = Source(rel, text)
        self._cache[rel] = (stamp, source)
        return source


@contextmanager
def _bulk() -> Iterator[None]:
    """Build many entrypoints without the cyclic garbage collector re-scanning them.

    Bulk building makes many long-lived objects and no garbage cycles, yet each
    new object counts towards the next collection: at 10k entrypoints the full
    collections took a quarter of the time and made the cost grow faster than
    the docroot. So the collector is paused meanwhile, and what was built is
    frozen (left out of later collections) until the snapshot is replaced.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def _relative(root: Path, path: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None
