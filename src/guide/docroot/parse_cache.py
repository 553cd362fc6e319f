"""A persistent cache of parsed frontmatter, one file per docroot, so a restart need not parse YAML again.

An entry holds what `frontmatter.split` made of one file (the mapping, where the
YAML and the body start, and their first lines, or the error), keyed by the
file's relative path, mtime_ns and size, and checked against a digest of the
file's text before use: the text is always read from the file, only the parse is
reused. It decides nothing about what is served (the scan says which files
exist, every text and body comes from disk), and a cached parse is used only for
the exact text it was made from. The cache file records Guide's version, PyYAML's and a digest of the
code that parses and encodes, so an upgrade or an edit of that code never reads
an older cache. It is JSON (nothing in it can run when loaded); a corrupt,
foreign or unreadable cache is ignored and rewritten on the next save; writes go
to a temporary file renamed over the old one, so concurrent writers each leave a
whole file and the last one wins. A location that cannot be written turns the
cache off for this process with one log line.

The cache folder is `$GUIDE_CACHE_DIR/frontmatter`, else `<user cache
folder>/guide/frontmatter` (platformdirs); `GUIDE_NO_CACHE=1` turns it off.
"""

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Collection, Mapping
from contextlib import suppress
from pathlib import Path

import yaml

from guide import __version__
from guide.docroot import frontmatter, yaml_codec
from guide.docroot.frontmatter import FrontmatterError, Parsed, split

CACHE_DIR_VARIABLE = "GUIDE_CACHE_DIR"
NO_CACHE_VARIABLE = "GUIDE_NO_CACHE"
SUBFOLDER = "frontmatter"
FORMAT = 1
LOAD_AFTER = 64
"""Files a docroot parses directly before loading its stored parses (see `ParseCache`)."""
SMALL_CACHE_BYTES = 256 * 1024
"""A cache file this small loads in a few milliseconds (about 400 files' parses)."""
NODES_PER_CHAR = 2  # encoding may visit at most this many values per character of YAML (alias expansion bound)
Stamp = tuple[int, int]  # (st_mtime_ns, st_size), as the docroot records them

log = logging.getLogger("guide")


def cache_folder(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where parse caches live, or None when `GUIDE_NO_CACHE` turns them off."""
    if environ.get(NO_CACHE_VARIABLE, "").strip() not in ("", "0"):
        return None
    chosen = environ.get(CACHE_DIR_VARIABLE, "").strip()
    if chosen:
        return Path(chosen).expanduser() / SUBFOLDER
    from platformdirs import user_cache_dir  # only needed when no folder is given

    return Path(user_cache_dir("guide", appauthor=False)) / SUBFOLDER


def producer() -> dict[str, str]:
    """What made a cache: Guide's version, PyYAML's, and a digest of the parsing and encoding code."""
    code = hashlib.blake2b(digest_size=12)
    for module in (frontmatter, yaml_codec):
        with suppress(OSError, TypeError):
            code.update(Path(module.__file__).read_bytes())
    libyaml = "+libyaml" if hasattr(yaml, "CSafeLoader") else ""
    return {"format": str(FORMAT), "guide": __version__, "yaml": f"{yaml.__version__}{libyaml}", "code": code.hexdigest()}


def text_digest(text: str) -> str:
    """A short digest of a file's text, to tell a cached parse still fits it."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class ParseCache:
    """Parsed frontmatter of one docroot's files, loaded from one cache file and saved back to it."""

    def __init__(self, root: Path, folder: Path | None, *, load_after: int = 0):
        """`load_after`: how many files are parsed directly before the stored parses are loaded.

        Loading the cache of a large docroot costs as much as parsing a few hundred
        files, so a server answering one question parses the few files it needs;
        a listing or a check, which needs them all, loads it.
        """
        self.root = Path(root).resolve()
        self.load_after = load_after
        self.path = None if folder is None else folder / f"{hashlib.sha256(str(self.root).encode()).hexdigest()[:32]}.json"
        self.parsed = 0  # files parsed by this cache object (misses)
        self.reused = 0  # files whose cached parse was used (hits)
        self._producer = producer()
        self._loaded: dict[str, list] | None = None  # rel -> [mtime_ns, size, digest, record], as stored; read on first use
        self._fresh: dict[str, tuple[Stamp, str, str, Parsed | FrontmatterError]] = {}  # parsed since the last save
        self._dirty = False
        self._damaged: set[str] = set()  # files whose stored entry could not be read back
        self._lock = threading.RLock()  # snapshots may be built on worker threads while a save runs (re-entered on first load)

    @property
    def _entries(self) -> dict[str, list]:
        if self._loaded is None:
            loaded = self._load() if self.path is not None else {}
            with self._lock:
                if self._loaded is None:
                    self._loaded = loaded
        return self._loaded

    @_entries.setter
    def _entries(self, entries: dict[str, list]) -> None:
        self._loaded = entries

    @classmethod
    def for_docroot(cls, root: Path) -> "ParseCache":
        """The cache of a docroot in the configured folder (a cache that stores nothing when turned off)."""
        return cls(root, cache_folder(), load_after=LOAD_AFTER)

    def parse(self, rel: str, stamp: Stamp, text: str) -> Parsed | FrontmatterError:
        """What `split` makes of `text` (file `rel` now, with `stamp`): reused from the cache when it still fits."""
        found = self.lookup(rel, stamp, text)
        if found is not None:
            return found
        try:
            result: Parsed | FrontmatterError = split(text)
        except FrontmatterError as error:
            result = error
        self.store(rel, stamp, text, result)
        return result

    def lookup(self, rel: str, stamp: Stamp, text: str) -> Parsed | FrontmatterError | None:
        """The cached parse of `text` (file `rel` now, with `stamp`), if the cache holds one that still fits."""
        if self.path is None:
            return None
        if self._loaded is None and self.load_after > 0:
            self.load_after -= 1
            return None
        found = self._lookup(rel, stamp, text_digest(text), text)
        if found is not None:
            self.reused += 1
        return found

    def store(self, rel: str, stamp: Stamp, text: str, result: Parsed | FrontmatterError) -> None:
        """Remember what parsing `text` gave, for the next save."""
        self.parsed += 1
        if self.path is not None:
            with self._lock:
                self._fresh[rel] = (stamp, text_digest(text), text, result)

    def save(self, keep: Collection[str] | None = None, *, if_loaded: bool = False) -> None:
        """Write the cache file if anything changed; with `keep`, entries of other files are dropped.

        With `if_loaded`, nothing happens unless the stored parses were loaded anyway,
        the cache file is small or missing, or every kept file was parsed here:
        merging a few new parses into a large cache means loading all of it, which
        costs more than parsing those few files again next time.
        Safe to call from another thread while files are parsed: encoding and writing happen outside the lock.
        """
        with self._lock:
            if self.path is None:
                return
            if if_loaded and self._loaded is None and not self._cheap_to_load() and (keep is None or not set(keep) <= self._fresh.keys()):
                return
            fresh, self._fresh = self._fresh, {}
            dirty, self._dirty = self._dirty, False
        stored = self._entries
        # A file parsed again though the stored parse still fits it (the first few files of a server) changes nothing.
        fresh = {rel: item for rel, item in fresh.items() if rel in self._damaged or stored.get(rel, [None] * 3)[:3] != [*item[0], item[1]]}
        self._damaged.clear()
        records = {rel: (stamp, digest, _record(result, text)) for rel, (stamp, digest, text, result) in fresh.items()}
        dirty = dirty or bool(records)
        with self._lock:
            entries = dict(self._entries)  # replaced, never changed in place: lookups and the writer below read it freely
            for rel, (stamp, digest, record) in records.items():
                if record is None:
                    entries.pop(rel, None)
                else:
                    entries[rel] = [stamp[0], stamp[1], digest, record]
            if keep is not None:
                kept = set(keep)
                dirty = dirty or any(rel not in kept for rel in entries)
                entries = {rel: entry for rel, entry in entries.items() if rel in kept}
            self._entries = entries
        if dirty:
            self._write({"producer": self._producer, "root": str(self.root), "files": entries})

    def _lookup(self, rel: str, stamp: Stamp, digest: str, text: str) -> Parsed | FrontmatterError | None:
        fresh = self._fresh.get(rel)
        if fresh is not None and fresh[:2] == (stamp, digest):
            return fresh[3]
        entry = self._entries.get(rel)
        if entry is None:
            return None
        try:
            mtime_ns, size, stored_digest, record = entry
            if (mtime_ns, size) != stamp or stored_digest != digest:
                return None
            return _restore(record, text)
        except (ValueError, TypeError, IndexError):
            self._damaged.add(rel)  # parsed again, and replaced at the next save
            return None

    def _cheap_to_load(self) -> bool:
        """Whether the cache file is missing or small enough to load in a few milliseconds."""
        try:
            return self.path is not None and self.path.stat().st_size <= SMALL_CACHE_BYTES
        except OSError:
            return True  # missing: nothing to load

    def _load(self) -> dict[str, list]:
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except OSError as error:
            self._unusable(error)
            return {}
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("producer") != self._producer or data.get("root") != str(self.root):
            self._dirty = True  # corrupt or written by another version: ignored, and rewritten at the next save
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def _write(self, document: dict) -> None:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{self.path.stem}.", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="ascii") as out:
                    out.write(json.dumps(document, separators=(",", ":")))  # one string: json.dump encodes in Python, 5x slower
                os.replace(temporary, self.path)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as error:
            self._unusable(error)

    def _unusable(self, error: OSError) -> None:
        log.warning("parse cache in %s cannot be used (%s); continuing without it", self.path.parent, error.strerror or error)
        self.path = None
        self._entries, self._fresh = {}, {}


def _record(result: Parsed | FrontmatterError, text: str) -> list | None:
    """The stored form of one parse, or None when it cannot be stored faithfully (then it is parsed again)."""
    if isinstance(result, FrontmatterError):
        return ["error", str(result), result.line]
    yaml_start = _yaml_start(text) if result.first_line == 2 else 0
    yaml_end = yaml_start + len(result.yaml_text)
    body_start = len(text) - len(result.body)
    if text[yaml_start:yaml_end] != result.yaml_text or text[body_start:] != result.body:
        return None
    meta = dict(result.meta)
    if not _plain(meta, result.yaml_text):
        try:
            meta = yaml_codec.encode(meta, NODES_PER_CHAR * len(result.yaml_text) + 16)
        except yaml_codec.Unencodable:
            return None
    tagged = meta != result.meta  # plain JSON data decodes to itself; anything tagged needs decoding
    return ["ok", meta, int(tagged), yaml_start, yaml_end, body_start, result.first_line, result.body_line]


def _plain(meta: dict, yaml_text: str) -> bool:
    """True when `meta` is JSON data as it is (the common case, checked at C speed); False means: encode it."""
    if "&" in yaml_text:  # anchors: values may be shared or contain themselves, so only the bounded encoder may walk them
        return False
    try:
        return json.loads(json.dumps(meta)) == meta  # tuples, non-string keys and NaN do not come back equal
    except (TypeError, ValueError):  # dates, binary, sets
        return False


def _restore(record: list, text: str) -> Parsed | FrontmatterError:
    """The parse a record stands for, against the file's current text; raise ValueError if it is damaged."""
    if record[0] == "error":
        _, message, line = record
        if not isinstance(message, str) or not (line is None or type(line) is int):
            raise ValueError("damaged error record")
        return FrontmatterError(message, line)
    _, meta, tagged, yaml_start, yaml_end, body_start, first_line, body_line = record
    offsets = (yaml_start, yaml_end, body_start, first_line, body_line)
    if record[0] != "ok" or not all(type(n) is int for n in offsets) or not 0 <= yaml_start <= yaml_end <= body_start <= len(text):
        raise ValueError("damaged record")
    if tagged:
        meta = yaml_codec.decode(meta)
    if not isinstance(meta, dict):
        raise ValueError("damaged record")
    return Parsed(meta, text[body_start:], text[yaml_start:yaml_end], first_line, body_line)


def _yaml_start(text: str) -> int:
    """Where the YAML starts: after the opening `---` and its line break (as `split` reads lines)."""
    if text.startswith("---\r\n"):
        return 5
    return 4 if text[3:4] in ("\n", "\r") else 3
