"""The per-file work of one build: what has been made of each template file, shared with the next build while the file is unchanged.

`Files` answers the questions asked of one file (its frontmatter, text,
template facts, declared forms, listing summary) from what is made, making
what is not: the frontmatter from the store's kept parses when the file's stamp
matches, else read and parsed. A listing needs only the frontmatter, so no text
is kept with it; a file's text and the template facts of its body are kept in
bounded memos (`TEXTS`, `TEMPLATES`): a check of every file keeps the last
thousand or so, and a render reads a body it lost again. A new build takes
over what these hold of the files unchanged since the previous one, so an edit
storm does not read and inspect the same large files again at every rebuild.

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
import time
from collections.abc import Hashable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from guide.docroot import files
from guide.docroot.config import REQUIRES
from guide.docroot.frontmatter import Front, FrontmatterError, Parsed, Summary, split, summary
from guide.docroot.memo import MEGA, OBJECT_WEIGHT, UNBUILT, Kept, Memos
from guide.docroot.snapshot import Snapshot, Source
from guide.docroot.store.parses import StoredParses, digest
from guide.forms.declare import Form, declare_forms
from guide.render import TemplateFacts, inspect

DeclaredKey = tuple[bool, tuple[str, ...], tuple]
"""Whether `source:` is allowed, the configuration's phases, and its lists."""
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
    """Whether the text holds a word, for a file whose frontmatter was not read."""


NOTHING = FileWork()
"""The work of a file nothing was made of yet."""
NO_TEMPLATE = TemplateFacts(None, ())


def _text_weight(parsed: Parsed | FrontmatterError) -> int:
    """A kept text's characters: the text, and its YAML once more (the parse)."""
    if isinstance(parsed, FrontmatterError):
        return OBJECT_WEIGHT
    return OBJECT_WEIGHT + len(parsed.text) + parsed.front.yaml_end - parsed.front.yaml_start  # walking the parse itself cost a check 10 %


TEXTS: Kept[Parsed | FrontmatterError] = Kept("a file's text with its frontmatter read", 1024, 64 * MEGA, _text_weight)
"""64 files at the file size cap: a render reads a text it lost again."""


def _facts_weight(facts: TemplateFacts) -> int:
    """The characters a body's template facts hold: the names they list."""
    named = (*facts.partials, *facts.references, *facts.inclusions, *facts.indents)
    words = sum(len(found[0]) + 1 for found in named) + sum(len(root) + 1 for root in facts.roots) + (len(facts.problem[1]) if facts.problem else 0)
    return OBJECT_WEIGHT * (10 + 2 * len(named)) + words  # each field, and each name's entry with its number


TEMPLATES: Kept[TemplateFacts] = Kept("the template facts of a file's body", 2048, 16 * MEGA, _facts_weight)


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
            self._cells: dict[str, _Cell] = {rel: cell for rel, cell in previous._cells.items() if self.unchanged(rel, previous.sources)} if previous else {}
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
                if self._previous is not None and self.unchanged(rel, self._previous[1]):
                    self._previous[0][rel] = cell  # the previous build may still be at work on the file: it shares what is made
            self._cells[rel] = cell
        return cell

    def _previous_cell(self, rel: str) -> _Cell | None:
        if self._previous is None:
            return None
        cells, sources = self._previous
        return cells.get(rel) if self.unchanged(rel, sources) else None

    def unchanged(self, rel: str, before: Mapping[str, Source]) -> bool:
        """Whether a file of this snapshot has the same source (path, stamp, identity) as in `before`."""
        return rel in self.sources and before.get(rel) == self.sources[rel]


class Files:
    """The questions asked of one snapshot's template files, answered from the work made of them (made now when missing)."""

    def __init__(self, snapshot: Snapshot, *, limit: int, parses: StoredParses | None, memos: Memos, previous: "Files | None" = None):
        """`limit`: the largest file read, in bytes; `parses`: the store's kept parses; `previous`: the files of the build replaced."""
        self.snapshot = snapshot
        self.limit = limit
        self.parses = parses
        self.works: Works = Works(snapshot.sources, previous.works if previous is not None else None)
        self._texts = memos.of(TEXTS)
        self._templates = memos.of(TEMPLATES)
        if previous is not None:
            unchanged = partial(self.works.unchanged, before=previous.snapshot.sources)
            self._texts.carry(previous._texts, unchanged)
            self._templates.carry(previous._templates, unchanged)

    def work(self, rel: str) -> FileWork:
        """What has been made of a file so far (nothing is made now)."""
        return self.works.get(rel)

    def front(self, rel: str) -> Front | FrontmatterError:
        """The frontmatter of a template file, or why it cannot be read (the kept parse when the stamp fits, else parsed)."""
        found = self.works.get(rel).front
        if found is None:
            found = self._kept(rel)
        if found is None:
            parsed = self._parse(rel)  # the text is not kept: a listing needs only the frontmatter
            found = parsed.front if isinstance(parsed, Parsed) else parsed
        return found

    def parsed(self, rel: str) -> Parsed | FrontmatterError:
        """The text of a template file with its frontmatter read (read now unless it is among the texts kept)."""
        found = self._texts.get(rel, UNBUILT)
        return self._texts.keep(rel, self._parse(rel)) if found is UNBUILT else found

    def template(self, rel: str) -> TemplateFacts:
        """The body's Mustache syntax error, the partials it includes and the names it looks up (nothing for an unreadable file)."""
        found = self._templates.get(rel, UNBUILT)
        if found is UNBUILT:
            parsed = self.parsed(rel)
            found = self._templates.keep(rel, inspect(parsed.body) if isinstance(parsed, Parsed) else NO_TEMPLATE)
        return found

    def declared(self, rel: str, allow_source: bool) -> Declared:
        """The forms a file declares, with their problems (one file may be included by many entrypoints)."""
        config = self.snapshot.config
        key = (allow_source, config.phases, tuple(config.lists.items()))
        found = self.works.get(rel).declared.get(key)
        if found is None:
            meta = front.meta if isinstance(front := self.front(rel), Front) else {}
            forms, issues = declare_forms(meta.get("elicitation"), origin=rel, fallback_all=meta.get("fallback"), allow_source=allow_source,
                                          phases=key[1], lists=config.lists)
            found = self.works.note_declared(rel, key, (tuple(forms), tuple(issues)))
        return found

    def allows(self, rel: str) -> bool:
        """Whether a template file's `requires-*` hold under this configuration (an unreadable one applies: its problem is reported)."""
        if not self.mentions(rel, REQUIRES):
            return True
        front = self.front(rel)
        return isinstance(front, FrontmatterError) or self.snapshot.config.allows(front.meta)

    def summary(self, rel: str) -> Summary:
        """What listing a file needs of its frontmatter: from its frontmatter if read, else the store's, else read now."""
        work = self.works.get(rel)
        if work.summary is not None:
            return work.summary
        kept = self._stored_summary(rel) if work.front is None else None
        return self.works.note_summary(rel, kept if kept is not None else summary(self.front(rel)))

    def mentions(self, rel: str, word: str) -> bool:
        """False only when the file surely has no frontmatter key starting with `word` (`word` is one of `MARKED`)."""
        work = self.works.get(rel)
        if work.summary is None and work.front is None and (stored := self._stored_summary(rel)) is not None:
            self.works.note_summary(rel, stored)
            work = self.works.get(rel)
        if work.summary is not None or work.front is not None:
            return any(mark.startswith(word) for mark in self.summary(rel).marks)
        found = work.mentions.get(word)
        if found is None:
            _, text, _ = self._read(rel)
            found = self.works.note_mention(rel, word, text is None or word in text)  # unreadable: the parse says why
        return found

    def _kept(self, rel: str) -> Front | FrontmatterError | None:
        """The frontmatter from the store's kept parses, if it holds one for the file's stamp (no file is read)."""
        source = self.snapshot.sources[rel]
        kept = self.parses.front(rel, source.stamp) if self.parses is not None and source.stamp is not None else None
        return self.works.note_front(rel, *kept) if kept is not None else None

    def unread(self) -> list[str]:
        """The template files whose frontmatter is neither noted nor kept in the store: each would be read and parsed when asked."""
        return [rel for rel, source in self.snapshot.sources.items()
                if source.stamp is not None and self.works.get(rel).front is None and self._kept(rel) is None]

    def note_read(self, rel: str, read: "Read", split_already: Parsed | FrontmatterError | None = None) -> Parsed | FrontmatterError:
        """A file's text as `read` found it, parsed (reusing a parse of the same text, or `split_already`, its split); the frontmatter noted if not yet."""
        source, work = self.snapshot.sources[rel], self.works.get(rel)
        read_ns, text, refusal = read
        text_digest = digest(text) if text is not None else ""
        if text is None:
            parsed: Parsed | FrontmatterError = FrontmatterError(refusal, None)
        elif work.front is not None and work.digest == text_digest:
            parsed = _with_text(work.front, text)
        else:
            kept = self.parses.checked(rel, source.stamp, text_digest) if self.parses is not None and source.stamp is not None else None
            parsed = _with_text(kept, text) if kept is not None else split_already if split_already is not None else _split(text)
            if kept is None and self.parses is not None and source.stamp is not None:
                self.parses.remember(rel, source.stamp, text, parsed, read_ns=read_ns, text_digest=text_digest)
        if work.front is None:
            self.works.note_front(rel, parsed.front if isinstance(parsed, Parsed) else parsed, text_digest or None)
        return parsed

    def _parse(self, rel: str) -> Parsed | FrontmatterError:
        """Read a template file and parse it (reusing a parse of the same text); its frontmatter is noted if it was not yet."""
        return self.note_read(rel, self._read(rel))

    def _read(self, rel: str) -> "Read":
        """A template file's text, or None and why it cannot be read."""
        return read_file(self.snapshot.root, self.snapshot.sources[rel], self.limit)

    def _stored_summary(self, rel: str) -> Summary | None:
        source = self.snapshot.sources[rel]
        return self.parses.summary(rel, source.stamp) if self.parses is not None and source.stamp is not None else None


class Read(NamedTuple):
    """A template file's text as read, or None and why it cannot be read; `read_ns`: the clock when reading began."""

    read_ns: int
    text: str | None
    refusal: str


def read_file(root: Path, source: Source, limit: int) -> Read:
    """A template file's text (at most `limit` bytes), or why it cannot be read."""
    read_ns = time.time_ns()
    if source.stamp is None:
        return Read(read_ns, None, "file is gone")
    try:
        return Read(read_ns, files.read_text(root, source.path, limit, encoding="utf-8-sig", identity=source.identity), "")
    except files.Refused as error:
        return Read(read_ns, None, f"file {error}")


def read_and_split(root: Path, source: Source, limit: int) -> tuple[Read, Parsed | FrontmatterError | None]:
    """A template file read and its frontmatter parsed, as `Files.note_read` takes them (what a worker process makes)."""
    read = read_file(root, source, limit)
    return read, _split(read.text) if read.text is not None else None


def same_fronts(before: Files, after: Files) -> bool:
    """Whether every template file changed between two builds shows the same frontmatter (what listings show of it).

    An earlier build that listed a file from its kept summary alone (no
    frontmatter read) showed only that summary, so the summaries are compared; a
    changed file the earlier build knew nothing of counts as changed. Reads files.
    """
    old_sources = before.snapshot.sources
    for rel, source in after.snapshot.sources.items():
        if old_sources.get(rel) != source:
            old = before.work(rel)
            if old.front is None and old.summary is None:
                return False
            if old.front is not None and _listed(old.front) != _listed(after.front(rel)):
                return False
            if old.front is None and old.summary != summary(after.front(rel)):
                return False
    return True


def _listed(front: Front | FrontmatterError) -> object:
    return front.meta if isinstance(front, Front) else front


def _split(text: str) -> Parsed | FrontmatterError:
    try:
        return split(text)
    except FrontmatterError as error:
        return error


def _with_text(front: Front | FrontmatterError, text: str) -> Parsed | FrontmatterError:
    """A kept frontmatter joined with the text it was read from (parsed again if the text cannot be the one)."""
    if isinstance(front, FrontmatterError):
        return front
    return Parsed(front, text) if front.body_start <= len(text) else _split(text)
