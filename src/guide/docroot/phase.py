"""The project's active workflow phase (C10), read from its state file and re-read when the file changes."""

import os
from pathlib import Path

from guide.docroot.config import read_phase


class PhaseFile:
    """A workflow state file; `phase()` re-reads it only when its stamp changed, `peek()` never reads it."""

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

    def peek(self) -> tuple[bool, str | None]:
        """Whether the phase is known without reading the file (it did not change since it was read), and the phase."""
        stamp = self._stamp()
        if stamp is None:
            return True, None
        read_stamp, phase = self._read
        return stamp == read_stamp, phase

    def _stamp(self) -> tuple[int, ...] | None:
        if self._where is None:
            return None
        try:
            status = os.stat(self._where)
        except OSError:
            return None
        return (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
