"""The parse kind of the store: each template's frontmatter as read, so a restart need not parse YAML again.

A record holds what `frontmatter.split` made of one file (the mapping, where the
YAML and the body lie in the text, or the error) with the file's stamp (inode,
size, modification and change time) and a digest of its text. A record is used
for a file whose stamp is exactly the one recorded, without reading the file:
any write changes the change time, which no program can set back. A file whose
change time lay within `RACY_NS` of the moment it was read might have changed
again within the clock's granularity, so its record is used only after the text
is read and matches the digest. Records are JSON data (nothing in them can run);
each is type-checked when used, and a bad one is parsed again and replaced. A
record longer than `MAX_RECORD_CHARS` is not kept (one log line; that file is
parsed again next time), so no one file fills the store's cap for the others.
"""

import hashlib
import json
import logging
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

from guide.docroot import yaml_codec
from guide.docroot.files import Stamp
from guide.docroot.frontmatter import Front, FrontmatterError, Parsed, Summary, summary
from guide.docroot.store.disk import MAX_STORED_BYTES, Store

KIND = "parses"
LOAD_AFTER = 64
"""Files a docroot parses directly before loading its stored parses (see `StoredParses`)."""
SMALL_BYTES = 256 * 1024
"""A parses file this small loads in a few milliseconds (about 400 files)."""
RACY_NS = 2_000_000_000
"""A file changed this close to being read may change again unseen by its stamp (file times are coarse)."""
NODES_PER_CHAR = 2  # encoding may visit at most this many values per character of YAML (alias expansion bound)
MAX_RECORD_CHARS = MAX_STORED_BYTES // 64
"""The longest kept mapping of one file, as JSON text: no one file may fill the kept parses of its docroot."""

log = logging.getLogger("guide")


class StoredParses:
    """The kept parses of one docroot: looked up by stamp, added as files are parsed, saved back when asked."""

    def __init__(self, store: Store, root: Path, *, load_after: int = LOAD_AFTER):
        """`load_after`: how many files are parsed directly before the kept parses are loaded.

        Loading the parses of a large docroot costs as much as parsing a few hundred
        files, so a server answering one question parses the few files it needs;
        a listing or a check, which needs them all, loads them.
        """
        self.store = store
        self.name = str(Path(root).resolve())
        self.load_after = load_after
        self.parsed = 0  # files parsed (misses)
        self.reused = 0  # files whose kept parse was used (hits)
        self._loaded: dict[str, list] | None = None  # rel -> record, as stored; read on first use
        self._fresh: dict[str, list] = {}  # records made since the last save
        self._dirty = False
        self._saved = False  # once written, the records are let go: a lookup can then only find what was parsed since
        self._lock = threading.Lock()

    def summary(self, rel: str, stamp: Stamp) -> Summary | None:
        """What listing file `rel` at `stamp` needs of its frontmatter, when the store holds it (no file read, no YAML decoded)."""
        record = self._record(rel, stamp)
        if record is None or _racy(record):
            return None
        if record[6] == "error":
            return summary(FrontmatterError("", None))
        if len(record) != 16 or type(record[14]) is not str or type(record[15]) is not list or not all(type(mark) is str for mark in record[15]):
            return None
        return Summary(record[14], frozenset(record[15]))

    def front(self, rel: str, stamp: Stamp) -> tuple[Front | FrontmatterError, str] | None:
        """The kept frontmatter of file `rel` at `stamp` and the digest of its text, when usable without reading the file."""
        record = self._record(rel, stamp)
        if record is None or _racy(record):
            return None
        found = self._restore(rel, record)
        return (found, record[5]) if found is not None else None

    def checked(self, rel: str, stamp: Stamp, text: str) -> Front | FrontmatterError | None:
        """The kept frontmatter of file `rel` at `stamp` whose text is `text`, if the record fits that text."""
        record = self._record(rel, stamp)
        if record is None or record[5] != digest(text):
            return None
        # A racy record stays racy (it is checked against the text each time): promoting it would mean writing the
        # kept parses while a listing may still be looking files up, which lets the loaded ones go.
        return self._restore(rel, record)

    def remember(self, rel: str, stamp: Stamp, text: str, parsed: Parsed | FrontmatterError, *, read_ns: int) -> None:
        """Keep what parsing `text` (file `rel` at `stamp`, read at `read_ns`) gave, for the next save."""
        if not self.store.usable:  # nothing will be saved (caches off): a record would only cost its making
            with self._lock:
                self.parsed += 1
            return
        front = parsed.front if isinstance(parsed, Parsed) else parsed
        record = _record(front, text)
        if record is not None and len(record[1]) > MAX_RECORD_CHARS:
            log.info("the parse of %s is not kept: its frontmatter takes %d characters as JSON, over %d", rel, len(record[1]), MAX_RECORD_CHARS)
            record = None
        with self._lock:
            self.parsed += 1
            if record is not None:
                self._fresh[rel] = [*stamp, read_ns, digest(text), *record]
            elif self._loaded is not None and rel in self._loaded:
                self._fresh[rel] = []  # cannot be kept faithfully: the old record goes at the next save

    def save(self, keep: Collection[str] | None = None, *, if_loaded: bool = False) -> None:
        """Write the kept parses if anything changed; with `keep`, records of other files are dropped.

        With `if_loaded`, nothing happens unless the kept parses were loaded anyway,
        the file is small or missing, or every kept file was parsed here: merging a
        few new parses into a large file means loading all of it, which costs more
        than parsing those few files again next time.
        """
        if not self.store.usable:
            return
        with self._lock:
            if if_loaded and self._loaded is None and not self._cheap_to_load() and (keep is None or not set(keep) <= self._fresh.keys()):
                return
            fresh, self._fresh = self._fresh, {}
        entries = dict(self._entries())
        changed = self._dirty or any(not _same(entries.get(rel), record) for rel, record in fresh.items())
        for rel, record in fresh.items():
            if record:
                entries[rel] = record
            else:
                entries.pop(rel, None)
        if keep is not None:
            kept = set(keep)
            changed = changed or any(rel not in kept for rel in entries)
            entries = {rel: record for rel, record in entries.items() if rel in kept}
        if not changed:
            return  # nothing to write, and what is loaded stays of use: a listing may still be looking files up
        self.store.save(KIND, self.name, {"root": self.name, "files": entries})
        with self._lock:
            # Something new was parsed, so files are being read anyway; the records need not stay in memory
            # (6 MB at 10,000 files). A file first looked up after this is parsed rather than the file loaded again.
            self._loaded, self._dirty, self._saved = None, False, True

    def _record(self, rel: str, stamp: Stamp) -> list | None:
        fresh = self._fresh.get(rel)
        if fresh:
            record = fresh
        elif self._loaded is None and (self.load_after > 0 or self._saved):
            self.load_after -= 1
            return None
        else:
            record = self._entries().get(rel)
        if not _well_formed(record) or tuple(record[:4]) != stamp:
            return None
        return record

    def _restore(self, rel: str, record: list) -> Front | FrontmatterError | None:
        try:
            found = _restore(record[6:])
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            found = None
        if found is None:
            with self._lock:
                self._dirty = True  # parsed again, and replaced at the next save
            return None
        with self._lock:
            self.reused += 1
        return found

    def _entries(self) -> dict[str, list]:
        if self._loaded is None:
            document = self.store.load(KIND, self.name)
            valid = isinstance(document, dict) and document.get("root") == self.name and isinstance(document.get("files"), dict)
            unusable = not valid and self.store.size(KIND, self.name) is not None  # something is there, but not kept parses of ours
            with self._lock:
                if self._loaded is None:
                    self._loaded = document["files"] if valid else {}
                    self._dirty = self._dirty or unusable
        return self._loaded

    def _cheap_to_load(self) -> bool:
        size = self.store.size(KIND, self.name)
        return size is None or size <= SMALL_BYTES


def digest(text: str) -> str:
    """A short digest of a file's text, to tell a kept parse still fits it."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _well_formed(record: Any) -> bool:
    """The stamp, read time and digest of a record have their types (the rest is checked when restored)."""
    if type(record) is not list or len(record) < 8:
        return False
    ino, size, mtime, ctime, read_ns, digest, kind = record[:7]  # checked one by one: asked of every record a listing looks up
    numbers = type(ino) is int and type(size) is int and type(mtime) is int and type(ctime) is int and type(read_ns) is int
    return numbers and type(digest) is str and type(kind) is str


def _same(stored: Any, fresh: list) -> bool:
    """Whether saving `fresh` over `stored` would change nothing that matters (a later read time alone does not)."""
    if not fresh or not _well_formed(stored):
        return not fresh and stored is None
    return stored[:4] == fresh[:4] and stored[5:] == fresh[5:] and _racy(stored) == _racy(fresh)


def _racy(record: list) -> bool:
    return record[4] - record[3] < RACY_NS  # read_ns - ctime_ns


def _record(front: Front | FrontmatterError, text: str) -> list | None:
    """The kept form of one parse, or None when it cannot be kept faithfully (then it is parsed again).

    The mapping is kept as JSON text inside the record: loading the kept parses
    of 10,000 files then reads 10,000 strings instead of building every mapping
    (0.07 s against 0.24 s), and a listing decodes none of them, since what it
    needs (the description, whether `requires-*` or `aliases` are there) is kept
    beside it.
    """
    if isinstance(front, FrontmatterError):
        return ["error", str(front), front.line]
    meta = dict(front.meta)
    plain = _plain(meta, text[front.yaml_start:front.yaml_end])
    if plain is None:
        try:
            plain = json.dumps(yaml_codec.encode(meta, NODES_PER_CHAR * (front.yaml_end - front.yaml_start) + 16), separators=(",", ":"))
        except yaml_codec.Unencodable:
            return None
        tagged = True
    else:
        tagged = False  # plain JSON data decodes to itself; anything tagged needs decoding
    listed = summary(front)
    numbers = [front.first_line, front.body_line, front.yaml_start, front.yaml_end, front.body_start]
    return ["ok", plain, int(tagged), *numbers, listed.description, sorted(listed.marks)]


def _plain(meta: dict, yaml_text: str) -> str | None:
    """`meta` as JSON text when it is JSON data as it is (the common case, checked at C speed); None means: encode it."""
    if "&" in yaml_text:  # anchors: values may be shared or contain themselves, so only the bounded encoder may walk them
        return None
    try:
        written = json.dumps(meta, separators=(",", ":"))
        return written if json.loads(written) == meta else None  # tuples, non-string keys and NaN do not come back equal
    except (TypeError, ValueError):  # dates, binary, sets
        return None


def _restore(record: list) -> Front | FrontmatterError | None:
    """The frontmatter a record stands for, or None when the record is not one this code writes."""
    if record[0] == "error":
        if len(record) != 3 or type(record[1]) is not str or not (record[2] is None or type(record[2]) is int):
            return None
        return FrontmatterError(record[1], record[2])
    if record[0] != "ok" or len(record) != 10 or type(record[1]) is not str:
        return None
    _, written, tagged, *numbers = record[:8]
    first_line, body_line, yaml_start, yaml_end, body_start = numbers
    if type(tagged) is not int or not all(type(n) is int for n in numbers) or not 0 <= yaml_start <= yaml_end <= body_start:
        return None
    if not 1 <= first_line <= body_line:
        return None
    meta = json.loads(written)
    if tagged:
        meta = yaml_codec.decode(meta)
    if not isinstance(meta, dict):
        return None
    return Front(meta, first_line, body_line, yaml_start, yaml_end, body_start)
