"""Which docroot files Guide may read, and reading them safely.

A docroot may come from a repository nobody reviewed. Guide serves a file only
when it is a regular file (not a FIFO, device or socket, which could hang a read
or never end), its real path lies inside the real docroot (a symlink may point
elsewhere in the docroot, never out of it), and it is at most `MAX_FILE_SIZE`
bytes (configurable). Every refusal says why in one line naming no path outside
the docroot.
"""

import errno
import os
import stat
from pathlib import Path
from typing import cast

Identity = tuple[int, int]  # (st_dev, st_ino)
Stamp = tuple[int, int, int, int]  # (st_ino, st_size, st_mtime_ns, st_ctime_ns)

MAX_FILE_SIZE = 1024 * 1024
"""The largest file Guide reads by default, in bytes: far beyond any Markdown page, small enough to hold many."""


class Refused(Exception):
    """A file Guide does not read; the message says why."""


class Gone(Refused):
    """The file disappeared since the docroot was scanned."""


class TooLarge(Refused):
    """The file is larger than the size cap."""


def real_path(root: Path, rel: str) -> str:
    """The real path of a docroot file, which must lie inside the real docroot `root`."""
    try:
        real = os.path.realpath(root / rel, strict=True)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Refused("is a symlink loop") from None
        if os.path.islink(root / rel):
            raise Refused("is a symlink to nothing") from None
        raise Gone("is gone") from None
    if not real.startswith(os.path.join(root, "")):
        raise Refused("is a symlink to a file outside the docroot")
    return real


def check(root: Path, rel: str, limit: int, entry: os.DirEntry | None = None) -> os.stat_result:
    """Refuse a file found by walking the real docroot `root` (never through a folder symlink), without reading it.

    `entry` is the file's entry in its folder's listing, when the caller has it.
    Returns the status of the file (of its target, for a symlink).
    """
    try:
        status = entry.stat(follow_symlinks=False) if entry is not None else os.lstat(root / rel)
        if stat.S_ISLNK(status.st_mode):
            status = os.stat(real_path(root, rel))
    except OSError:
        raise Gone("is gone") from None
    _check_status(status, limit)
    return status


def read_text(root: Path, rel: str, limit: int, encoding: str = "utf-8", identity: Identity | None = None) -> str:
    """The text of a docroot file, if Guide may read it; raise `Refused` (or a subclass) otherwise.

    `identity` is the file's (device, inode) as a walk of the real docroot found it
    (not through any symlink): while the same file is still at that path, its path
    need not be resolved again to prove it lies inside the docroot.
    """
    if identity is not None:
        data = _read(root / rel, limit, identity)
        if data is not None:
            return decode(data, encoding)
    return decode(read_bytes(real_path(root, rel), limit), encoding)


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; a FIFO or device is refused, never waited on."""
    return cast(bytes, _read(path, limit, None))  # None comes only with an expected identity


def stamp(status: os.stat_result) -> Stamp:
    """What changes whenever the file does: inode, size, modification and change time (no program can set the last back)."""
    return (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def identity(status: os.stat_result) -> Identity:
    """What tells one file from every other on this machine: its device and inode."""
    return (status.st_dev, status.st_ino)


def _read(path: str | Path, limit: int, expected: Identity | None) -> bytes | None:
    """The bytes of a regular file (None when `expected` is given and the file at `path` is another one)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise Gone("is gone") from None
    except OSError as error:
        if expected is not None:
            return None  # a symlink now, perhaps: the caller resolves the path and tries again
        raise Refused(f"cannot be opened ({os.strerror(error.errno or 0).lower()})") from None
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(file.fileno())
        if expected is not None and identity(status) != expected:
            return None
        _check_status(status, limit)
        # Sized by the file, not the cap: a read of `limit` bytes would allocate the whole cap for every small file.
        data = file.read(status.st_size + 1)
        if len(data) > status.st_size:  # it grew since the check
            data += file.read(limit + 1 - len(data))
    if len(data) > limit:
        raise TooLarge(_too_large(len(data), limit))
    return data


def decode(data: bytes, encoding: str = "utf-8") -> str:
    """Bytes as text; a file that is not text in `encoding` is refused, naming the first bad byte."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise Refused(f"is not UTF-8 text (byte {error.start + 1} is 0x{data[error.start]:02x})") from None


def shown(rel: str) -> str:
    """A relative path as messages show it: bytes that are not UTF-8 become U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _check_status(status: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise Refused("is not a regular file")
    if status.st_size > limit:
        raise TooLarge(_too_large(status.st_size, limit))


def _too_large(size: int, limit: int) -> str:
    return f"is {size} bytes, over the limit of {limit} bytes for a served file"
