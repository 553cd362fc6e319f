"""The per-file work of one build: what has been made of each template file, shared with the next build while the file is unchanged.

Each file's work is one frozen record (`FileWork`) in a cell. A thread that
makes more of it (a parse, a summary, declared forms) does so outside any lock,
then replaces the cell's record under the lock; a reader takes the record
whole, so it never sees half of an update. The lock is shared by a build and
every build made from it, because a cell is shared too: the previous build may
still be at work on a file (a listing in progress as the new build is made),
and what either build notes must reach both. The cells of a build are only
ever gone through under that lock.
"""

import threading
from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from guide.docroot.frontmatter import Front, FrontmatterError, Summary
from guide.docroot.snapshot import Source
from guide.forms.declare import Form

DeclaredKey = tuple[bool, tuple[str, ...]]
"""Whether `source:` is allowed, and the configuration's phases."""
Declared = tuple[tuple[Form, ...], tuple]
"""The forms a file declares, and their problems."""


class Few(tuple):
    """A few values by key, as a tuple of (key, value) pairs: a file's work has one or two of each (a dict is four times the size)."""

    __slots__ = ()

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value under `key`, else `default`."""
        return next((value for known, value in self if known == key), default)

    def adding(self, key: Hashable, value: Any) -> "Few":
        """These pairs and one more."""
        return Few((*self, (key, value)))


_NONE = Few()


class FileWork(NamedTuple):
    """What has been made of one template file at one stamp: replaced whole, never changed."""

    summary: Summary | None = None
    front: Front | FrontmatterError | None = None
    digest: str | None = None
    """Of the text `front` was read from."""
    declared: Few = _NONE
    """The forms a file declares and their problems (`Declared`), by `DeclaredKey`."""
    mentions: Few = _NONE
    """Whether the text holds a word, for a file whose frontmatter was not read (let go once it is, or its summary known)."""


NOTHING = FileWork()
"""The work of a file nothing was made of yet."""


class _Cell:
    __slots__ = ("work",)

    def __init__(self, work: FileWork):
        self.work = work


class Works:
    """The work made of each template file of one snapshot, with what the previous build made of the files unchanged since."""

    def __init__(self, sources: Mapping[str, Source], previous: "Works | None" = None):
        """`sources`: the snapshot's template files; `previous`: the work of the build this one replaces."""
        self.sources = sources
        self._lock: threading.Lock = previous._lock if previous is not None else threading.Lock()
        with self._lock:
            self._cells: dict[str, _Cell] = {rel: cell for rel, cell in previous._cells.items() if self._unchanged(rel, previous.sources)} if previous else {}
        # What the previous build makes later of an unchanged file is taken over when first asked for, not lost.
        self._previous = (previous._cells, previous.sources) if previous is not None else None

    def get(self, rel: str) -> FileWork:
        """What has been made of a file so far, by this build or (while the file is unchanged) by the previous one."""
        cell = self._cells.get(rel) or self._previous_cell(rel)
        return cell.work if cell is not None else NOTHING

    def note_front(self, rel: str, front: Front | FrontmatterError, digest: str | None) -> Front | FrontmatterError:
        """Note a file's frontmatter and the digest of its text, unless one was noted already; the frontmatter kept."""
        with self._lock:
            cell = self._cell(rel)
            if cell.work.front is None:
                cell.work = cell.work._replace(front=front, digest=digest, mentions=_NONE)
                return front
            return cell.work.front

    def note_summary(self, rel: str, summary: Summary) -> Summary:
        """Note what a listing needs of a file's frontmatter, unless it was noted already; the summary kept."""
        with self._lock:
            cell = self._cell(rel)
            if cell.work.summary is None:
                cell.work = cell.work._replace(summary=summary, mentions=_NONE)
                return summary
            return cell.work.summary

    def note_declared(self, rel: str, key: DeclaredKey, declared: Declared) -> Declared:
        """Note the forms a file declares under `key`, unless they were noted already; the ones kept."""
        with self._lock:
            cell = self._cell(rel)
            found = cell.work.declared.get(key)
            if found is None:
                cell.work = cell.work._replace(declared=cell.work.declared.adding(key, declared))
                found = declared
            return found

    def note_mention(self, rel: str, word: str, found: bool) -> bool:
        """Note whether a file's text holds `word`, unless it was noted already; the answer kept."""
        with self._lock:
            cell = self._cell(rel)
            known = cell.work.mentions.get(word)
            if known is None:
                cell.work = cell.work._replace(mentions=cell.work.mentions.adding(word, found))
                known = found
            return known

    def _cell(self, rel: str) -> _Cell:
        """The file's cell, taken over from the previous build or made if it has none yet (then the previous build's too); under the lock."""
        cell = self._cells.get(rel)
        if cell is None:
            cell = self._previous_cell(rel)
            if cell is None:
                cell = _Cell(NOTHING)
                if self._previous is not None and self._unchanged(rel, self._previous[1]):
                    self._previous[0][rel] = cell  # the previous build may still be at work on the file: it shares what is made
            self._cells[rel] = cell
        return cell

    def _previous_cell(self, rel: str) -> _Cell | None:
        if self._previous is None:
            return None
        cells, sources = self._previous
        return cells.get(rel) if self._unchanged(rel, sources) else None

    def _unchanged(self, rel: str, before: Mapping[str, Source]) -> bool:
        """Whether a file of this snapshot has the same source (path, stamp, identity) as in `before`."""
        return rel in self.sources and before.get(rel) == self.sources[rel]
