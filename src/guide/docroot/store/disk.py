"""The one folder where Guide keeps files outside the docroot, and the rules for every file in it.

Guide keeps parses, listings and check reports so that a restart, or a second `guide check`,
need not redo them. Nothing kept there is ever trusted more than the folder:

- The folder is the one given (the `cache_dir` setting, `GUIDE_CACHE_DIR`), else
  `<user cache folder>/guide` (platformdirs); the `no_cache` setting (`GUIDE_NO_CACHE=1`)
  turns the store off. Folders Guide creates are private to the
  user (0700) and files are 0600. An existing folder that is not the user's, or that
  group or others may write, is not trusted: the store is off for this process, with
  one log line saying why and how to fix it.
- Only regular files are opened, without following a symlink and never waiting on a
  FIFO or device, up to `MAX_STORED_BYTES`; a larger document is never written
  (one log line). A write goes to a new file renamed over the old one, so a
  symlink at that path is replaced, never written through, and concurrent
  writers each leave a whole file (the last one wins).
- Every file starts with a header line naming the code that wrote it (Guide's version
  and a digest of its code) and a MAC of the rest, keyed by a random key kept in the
  folder. A file written by other code, damaged, or planted without the key is
  ignored (and rewritten by the next save). The kinds check each record's type when
  they use it.
- A location that cannot be used (read-only, full) turns the store off for this
  process with one log line; Guide then works as if nothing were kept.
"""

import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import tempfile
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

import yaml

import guide
from guide.docroot import files

MAX_STORED_BYTES = 256 * 1024 * 1024
"""The largest file the store reads or writes: a 10k-file docroot's parses take about 15 MB."""
KEY_FILE = "key"
KEY_BYTES = 32
FORMAT = 2

log = logging.getLogger("guide")
_told: set[str] = set()  # folders logged as unusable, and files logged as too large to keep, in this process: one line each


class Store:
    """Guide's private folder for kept files; `load` and `save` whole JSON documents by kind and name."""

    def __init__(self, folder: Path | None):
        """A store in `folder` (None: a store that keeps nothing). Nothing is touched until first used."""
        self.folder = folder
        self._key: bytes | None = None
        self._kinds: set[Path] = set()

    @classmethod
    def chosen(cls, folder: Path | None, *, off: bool = False) -> "Store":
        """The store in `folder` (None: the user cache folder's), or one that keeps nothing when `off`."""
        return cls(store_folder(folder, off=off))

    @property
    def usable(self) -> bool:
        """Whether anything may be kept (False when turned off, or once the folder proved unusable)."""
        return self.folder is not None

    def load(self, kind: str, name: str) -> Any | None:
        """The document kept under `kind`/`name`, if this code wrote it and nothing changed it since; else None."""
        path = self.path(kind, name)
        if path is None or self._ready() is None or not self._trusted_kind(path.parent, create=False):
            return None
        try:
            data = files.read_bytes(path, MAX_STORED_BYTES)
        except files.Gone:
            return None
        except files.Refused as error:
            log.info("kept file %s is ignored: it %s", path, error)
            return None
        return self._open(data)

    def save(self, kind: str, name: str, document: Any) -> None:
        """Keep `document` (JSON data) under `kind`/`name`, replacing what was there."""
        path = self.path(kind, name)
        key = self._ready() if path is not None else None
        if path is None or key is None or not self._trusted_kind(path.parent, create=True):
            return
        body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
        header = json.dumps({"format": FORMAT, "producer": producer(), "mac": _mac(key, body)}).encode()
        size = len(header) + 1 + len(body)
        if size > MAX_STORED_BYTES:  # `load` would refuse it: writing it would only fill the disk
            if str(path) not in _told:
                _told.add(str(path))
                log.warning("kept %s for %s are not saved: %d bytes is over the %d bytes a kept file may take", kind, name, size, MAX_STORED_BYTES)
            return
        try:
            _replace(path, header + b"\n", body)
        except OSError as error:
            self._off(f"it cannot be written ({error.strerror or error})")

    def size(self, kind: str, name: str) -> int | None:
        """The size in bytes of the file kept under `kind`/`name`, or None if there is none."""
        path = self.path(kind, name)
        try:
            return os.lstat(path).st_size if path is not None else None
        except OSError:
            return None

    def _open(self, data: bytes) -> Any | None:
        header, _, body = data.partition(b"\n")
        try:
            fields = json.loads(header)
            if not isinstance(fields, dict) or fields.get("format") != FORMAT or fields.get("producer") != producer():
                return None
            if not isinstance(fields.get("mac"), str) or not hmac.compare_digest(fields["mac"], _mac(self._key or b"", body)):
                return None
            return json.loads(body)
        except (ValueError, RecursionError):
            return None

    def path(self, kind: str, name: str) -> Path | None:
        """Where the file kept under `kind`/`name` lives (None when the store is off)."""
        if self.folder is None:
            return None
        return self.folder / kind / f"{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.json"

    def _ready(self) -> bytes | None:
        """The key of a trusted folder (made on first use), or None when the store is off."""
        if self._key is not None or self.folder is None:
            return self._key
        try:
            _private_folder(self.folder, create=True)
            self._key = _key(self.folder / KEY_FILE)
        except OSError as error:
            self._off(f"it cannot be used ({error.strerror or error})")
        except Untrusted as error:
            self._off(str(error))
        return self._key

    def _trusted_kind(self, folder: Path, *, create: bool) -> bool:
        """Whether the folder of one kind may be used (checked once per process); False also when it is missing."""
        if folder in self._kinds:
            return True
        try:
            if not _private_folder(folder, create=create):
                return False
        except OSError as error:
            self._off(f"it cannot be used ({error.strerror or error})")
            return False
        except Untrusted as error:
            self._off(str(error))
            return False
        self._kinds.add(folder)
        return True

    def _off(self, reason: str) -> None:
        folder, self.folder, self._key = self.folder, None, None
        if str(folder) not in _told:
            _told.add(str(folder))
            log.warning("cache folder %s is not used: %s; Guide goes on without keeping parses or reports", folder, reason)


class Untrusted(Exception):
    """The folder or key exists but may have been written by someone else; the message says how to fix it."""


def store_folder(folder: Path | None, *, off: bool = False) -> Path | None:
    """Where kept files live: `folder` (None: the user cache folder's `guide`), or None when keeping is `off`."""
    if off:
        return None
    if folder is not None:
        return Path(os.path.realpath(folder.expanduser()))
    from platformdirs import user_cache_dir  # only needed when no folder is given

    return Path(user_cache_dir("guide", appauthor=False))


@cache
def producer() -> str:
    """What wrote a kept file: Guide's version, PyYAML's, and a digest of Guide's code (any change never reads an older file)."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(Path(guide.__file__).parent.rglob("*.py")):
        with suppress(OSError):
            digest.update(path.read_bytes())
    libyaml = "+libyaml" if hasattr(yaml, "CSafeLoader") else ""
    return f"{guide.__version__}:{yaml.__version__}{libyaml}:{digest.hexdigest()}"


def _mac(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def _private_folder(folder: Path, *, create: bool) -> bool:
    """Check that `folder` is private to the user; with `create`, make it (and missing parents) private first.

    Returns False when it does not exist and `create` is off.
    """
    if not os.path.lexists(folder):
        if not create:
            return False
        if not os.path.lexists(folder.parent):
            _private_folder(folder.parent, create=True)
        with suppress(FileExistsError):
            os.mkdir(folder, 0o700)
    status = os.lstat(folder)
    if not stat.S_ISDIR(status.st_mode):
        raise Untrusted(f"{folder} is not a folder (a symlink or a file is there); remove it or set GUIDE_CACHE_DIR to a private folder")
    _check_owner(folder, status, "folder")
    return True


def _check_owner(path: Path, status: os.stat_result, what: str) -> None:
    if status.st_uid != os.geteuid():
        raise Untrusted(f"the {what} {path} belongs to another user; set GUIDE_CACHE_DIR to a folder of your own")
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise Untrusted(f"others may write the {what} {path}; run `chmod go-w {path}` or set GUIDE_CACHE_DIR to a private folder")


def _key(path: Path) -> bytes:
    """The folder's MAC key: read if it is there (a private regular file of the right size), else made.

    A new key is written whole to a temporary file and linked into place, so a
    process starting at the same moment reads either no key or the whole one.
    """
    if not os.path.lexists(path):
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(secrets.token_bytes(KEY_BYTES))
            with suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            with suppress(OSError):
                os.unlink(temporary)
    try:
        key = files.read_bytes(path, KEY_BYTES)
    except files.Refused as error:
        raise Untrusted(f"its key file {path} {error}; remove it") from None
    _check_owner(path, os.lstat(path), "key file")
    if len(key) != KEY_BYTES:
        raise Untrusted(f"its key file {path} is damaged; remove it")
    return key


def _replace(path: Path, *parts: bytes) -> None:
    """Write `parts` to a new private file and rename it over `path` (a symlink there is replaced, not followed)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:  # written in turn: a large body is never copied to join it with its header
                out.write(part)
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
