"""The parse kind of the store: each template's frontmatter as read, so a restart need not parse YAML again.

A `Record` holds what `frontmatter.split` made of one file (the mapping, where
the YAML and the body lie in the text, or the error) with the file's stamp
(inode, size, modification and change time) and a digest of its text. A record
is used for a file whose stamp is exactly the one recorded, without reading the
file: any write changes the change time, which no program can set back. A file
whose change time lay within `RACY_NS` of the moment it was read might have
changed again within the clock's granularity, so its record is used only after
the text is read and matches the digest. Records are JSON data (nothing in them
can run); each is type-checked when used, and a bad one is parsed again and
replaced. A record longer than `MAX_RECORD_CHARS` is not kept (one log line;
that file is parsed again next time), so no one file fills the store's cap for
the others.

What is parsed in this process is held as a `Parsing` (the frontmatter itself,
shared with the build that parsed it) and written out as a record only when
saved: holding each mapping both parsed and as JSON text until then cost about
1 KB a file.
"""

import hashlib
import json
import logging
import threading
from collections.abc import Collection
from pathlib import Path
from types import UnionType
from typing import Any, NamedTuple, get_args, get_origin, get_type_hints

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


class Record(NamedTuple):
    """One file's kept parse as stored: a JSON list of these fields, in this order."""

    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    read_ns: int
    """When the text was read (a file changed just before may have changed again unseen, `RACY_NS`)."""
    digest: str
    """Of the text read."""
    mapping: str
    """The frontmatter mapping as JSON text: loading 10,000 records then reads strings instead of building every mapping."""
    tagged: bool
    """Whether the mapping holds values JSON cannot (dates, binary...), written as `yaml_codec` tags to decode."""
    first_line: int
    body_line: int
    yaml_start: int
    yaml_end: int
    body_start: int
    description: str
    """What a listing needs, kept beside the mapping so that a listing decodes none."""
    marks: list[str]
    error: str | None
    """Why the frontmatter cannot be read; when set, the fields from `mapping` to `marks` say nothing."""
    error_line: int | None

    @property
    def stamp(self) -> Stamp:
        """The file's stamp when it was read."""
        return (self.ino, self.size, self.mtime_ns, self.ctime_ns)


class Parsing(NamedTuple):
    """A parse made in this process and not saved yet: the frontmatter itself, made into a `Record` when saved."""

    stamp: Stamp
    read_ns: int
    digest: str
    front: Front | FrontmatterError
    anchored: bool
    """Whether the YAML text has an anchor (`&`): only the bounded encoder may walk values it shares."""

    @property
    def ctime_ns(self) -> int:
        """The file's change time when it was read."""
        _, _, _, ctime_ns = self.stamp
        return ctime_ns


Kept = Record | Parsing


def _accepted(hint: Any) -> tuple[type, ...]:
    """The exact types a stored field's annotation admits (JSON data: `list[str]` is a list, checked further when used)."""
    options = get_args(hint) if get_origin(hint) is UnionType else (hint,)
    return tuple(get_origin(option) or option for option in options)


_FIELD_TYPES = tuple(_accepted(hint) for hint in get_type_hints(Record).values())
_FIELDS = len(Record._fields)


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
        self._loaded: dict[str, Any] | None = None  # rel -> record, as stored (a list); read on first use
        self._fresh: dict[str, Parsing | None] = {}  # parses made since the last save; None: the stored record goes
        self._dirty = False
        self._saved = False  # once written, the records are let go: a lookup can then only find what was parsed since
        self._lock = threading.Lock()

    def summary(self, rel: str, stamp: Stamp) -> Summary | None:
        """What listing file `rel` at `stamp` needs of its frontmatter, when the store holds it (no file read, no YAML decoded)."""
        kept = self._kept(rel, stamp)
        if kept is None or _racy(kept):
            return None
        if isinstance(kept, Parsing):
            return summary(kept.front)
        if kept.error is not None:
            return summary(FrontmatterError("", None))
        return Summary(kept.description, tuple(sorted(kept.marks))) if all(type(mark) is str for mark in kept.marks) else None

    def front(self, rel: str, stamp: Stamp) -> tuple[Front | FrontmatterError, str] | None:
        """The kept frontmatter of file `rel` at `stamp` and the digest of its text, when usable without reading the file."""
        kept = self._kept(rel, stamp)
        if kept is None or _racy(kept):
            return None
        found = self._restore(kept)
        return (found, kept.digest) if found is not None else None

    def checked(self, rel: str, stamp: Stamp, text_digest: str) -> Front | FrontmatterError | None:
        """The kept frontmatter of file `rel` at `stamp` whose text has the digest `text_digest`, if the record fits that text."""
        kept = self._kept(rel, stamp)
        if kept is None or kept.digest != text_digest:
            return None
        # A racy record stays racy (it is checked against the text each time): promoting it would mean writing the
        # kept parses while a listing may still be looking files up, which lets the loaded ones go.
        return self._restore(kept)

    def remember(self, rel: str, stamp: Stamp, text: str, parsed: Parsed | FrontmatterError, *, read_ns: int, text_digest: str) -> None:
        """Keep what parsing `text` (file `rel` at `stamp`, read at `read_ns`, digest `text_digest`) gave, for the next save."""
        if not self.store.usable:  # nothing will be saved (caches off): a record would only cost its making
            with self._lock:
                self.parsed += 1
            return
        front = parsed.front if isinstance(parsed, Parsed) else parsed
        anchored = isinstance(front, Front) and text.find("&", front.yaml_start, front.yaml_end) >= 0
        parsing = Parsing(stamp, read_ns, text_digest, front, anchored)
        with self._lock:
            self.parsed += 1
            self._fresh[rel] = parsing

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
        changed = self._dirty
        for rel, parsing in fresh.items():
            record = _stored(rel, parsing) if parsing is not None else None
            if record is None:
                changed = changed or rel in entries
                entries.pop(rel, None)  # cannot be kept faithfully: parsed again next time
            else:
                changed = changed or not _same(entries.get(rel), record)
                entries[rel] = record
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

    def _kept(self, rel: str, stamp: Stamp) -> Kept | None:
        """What is kept of file `rel` at `stamp`: a parse made here, else a well-formed stored record."""
        fresh = self._fresh.get(rel)
        if fresh is not None:
            return fresh if fresh.stamp == stamp else None
        if self._loaded is None and (self.load_after > 0 or self._saved):
            self.load_after -= 1
            return None
        record = _well_formed(self._entries().get(rel))
        return record if record is not None and record.stamp == stamp else None

    def _restore(self, kept: Kept) -> Front | FrontmatterError | None:
        if isinstance(kept, Parsing):
            found: Front | FrontmatterError | None = kept.front
        else:
            try:
                found = _restore(kept)
            except (ValueError, TypeError, KeyError, IndexError, RecursionError):
                found = None
        if found is None:
            with self._lock:
                self._dirty = True  # parsed again, and replaced at the next save
            return None
        with self._lock:
            self.reused += 1
        return found

    def _entries(self) -> dict[str, Any]:
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


def _well_formed(stored: Any) -> Record | None:
    """A stored record with every field of its type (what the fields say together is checked when restored)."""
    if type(stored) is not list or len(stored) != _FIELDS:
        return None
    if not all(type(value) in accepted for value, accepted in zip(stored, _FIELD_TYPES)):
        return None
    return Record._make(stored)


def _same(stored: Any, record: Record) -> bool:
    """Whether saving `record` over `stored` would change nothing that matters (a later read time alone does not)."""
    old = _well_formed(stored)
    return old is not None and old._replace(read_ns=record.read_ns) == record and _racy(old) == _racy(record)


def _racy(kept: Kept) -> bool:
    return kept.read_ns - kept.ctime_ns < RACY_NS


def _stored(rel: str, parsing: Parsing) -> Record | None:
    """The record to store for a parse, or None when it cannot be kept faithfully (then it is parsed again)."""
    front = parsing.front
    if isinstance(front, FrontmatterError):
        return Record(*parsing.stamp, parsing.read_ns, parsing.digest, "", False, 1, 1, 0, 0, 0, "", [], str(front), front.line)
    meta = dict(front.meta)
    written = None if parsing.anchored else _plain(meta)
    if written is None:
        try:
            written = json.dumps(yaml_codec.encode(meta, NODES_PER_CHAR * (front.yaml_end - front.yaml_start) + 16), separators=(",", ":"))
        except yaml_codec.Unencodable:
            return None
        tagged = True
    else:
        tagged = False  # plain JSON data decodes to itself; anything tagged needs decoding
    if len(written) > MAX_RECORD_CHARS:
        log.info("the parse of %s is not kept: its frontmatter takes %d characters as JSON, over %d", rel, len(written), MAX_RECORD_CHARS)
        return None
    listed = summary(front)
    return Record(*parsing.stamp, parsing.read_ns, parsing.digest, written, tagged, front.first_line, front.body_line, front.yaml_start,
                  front.yaml_end, front.body_start, listed.description, list(listed.marks), None, None)


def _plain(meta: dict) -> str | None:
    """`meta` as JSON text when it is JSON data as it is (the common case, checked at C speed); None means: encode it."""
    try:
        written = json.dumps(meta, separators=(",", ":"))
        return written if json.loads(written) == meta else None  # tuples, non-string keys and NaN do not come back equal
    except (TypeError, ValueError):  # dates, binary, sets
        return None


def _restore(record: Record) -> Front | FrontmatterError | None:
    """The frontmatter a well-formed record stands for, or None when its fields do not fit together."""
    if record.error is not None:
        return FrontmatterError(record.error, record.error_line)
    if not 0 <= record.yaml_start <= record.yaml_end <= record.body_start or not 1 <= record.first_line <= record.body_line:
        return None
    meta = json.loads(record.mapping)
    if record.tagged:
        meta = yaml_codec.decode(meta)
    if not isinstance(meta, dict):
        return None
    return Front(meta, record.first_line, record.body_line, record.yaml_start, record.yaml_end, record.body_start)
