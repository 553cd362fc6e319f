"""A project's active workflow phase (C10), read from its state file and re-read when the file changes; one state file per project a read names."""

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from guide.docroot.config import read_phase
from guide.docroot.memo import UNBUILT, Unbuilt


class PhaseFile:
    """A workflow state file; `phase()` re-reads it only when its stamp changed, `known()` never reads it."""

    def __init__(self, path: Path | None):
        self.path = path
        self._where = None if path is None else os.fspath(path)  # stat'ed on every read: a str is quicker than a Path
        self._read: tuple[tuple[int, ...] | None, str | None] = (None, None)  # the stamp last read, and the phase it named

    def phase(self) -> str | None:
        """The phase the file names now, or None (no workflow, no file, or no phase in it)."""
        stamp = self._stamp()
        if stamp is None:
            return None
        if stamp != self._read[0]:
            self._read = (stamp, read_phase(self.path))
        return self._read[1]

    def known(self) -> str | None | Unbuilt:
        """The phase if it is known without reading the file (it did not change since it was read), else `UNBUILT`."""
        stamp = self._stamp()
        if stamp is None:
            return None
        read_stamp, phase = self._read
        return phase if stamp == read_stamp else UNBUILT

    def _stamp(self) -> tuple[int, ...] | None:
        if self._where is None:
            return None
        try:
            status = os.stat(self._where)
        except OSError:
            return None
        return (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


MAX_PROJECTS = 64
"""The projects whose state files one server keeps at once (C10, `--projects-under`); the least recently read go first."""


class PhaseFiles:
    """The state files of the projects reads are about, under one configuration: a small bounded cache of `PhaseFile`s."""

    def __init__(self, where: Callable[[Path], Path | None], limit: int = MAX_PROJECTS):
        self._where = where
        self._limit = limit
        self._files: OrderedDict[Path, PhaseFile] = OrderedDict()
        self._lock = threading.Lock()  # asked on the event loop and in worker threads alike

    def of(self, project: Path) -> PhaseFile:
        """The state file of `project` (a real folder), made when first asked."""
        with self._lock:
            found = self._files.get(project)
            if found is not None:
                self._files.move_to_end(project)
                return found
            found = self._files[project] = PhaseFile(self._where(project))
            if len(self._files) > self._limit:
                self._files.popitem(last=False)
            return found
