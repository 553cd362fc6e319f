"""The project's active workflow phase (C10), read from its state file and re-read when the file changes."""

from pathlib import Path

from guide.docroot.config import read_phase
from guide.docroot.ready import slow_work


class PhaseFile:
    """A workflow state file; `phase()` re-reads it only when its size or time changed."""

    def __init__(self, path: Path | None):
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._phase: str | None = None

    def phase(self) -> str | None:
        """The phase the file names now, or None (no workflow, no file, or no phase in it)."""
        if self.path is None:
            return None
        try:
            stat = self.path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            slow_work()
            self._stamp, self._phase = stamp, read_phase(self.path)
        return self._phase
