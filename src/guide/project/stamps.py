"""Whether what a live source read has changed since: the stamps of the folders and files its choices come from.

A source's choices are names (branches, tags, files), and a name is added,
removed or renamed only by changing the folder that holds it, which gives that
folder a new stamp (its change time, and with it the modification time). So a
source's read is kept with the stamps, taken before it read, of every folder it
looked in and of every file that lists names (git's `packed-refs`, `HEAD`, the
reftable list), and it holds while each is unchanged.

A stamp changed within the file system's timestamp granularity of being taken
cannot tell two states apart (two edits in one clock tick leave one stamp). A
read whose newest stamp is younger than `SETTLED_NS` when taken is therefore
never kept (git's "racily clean" rule). A file system whose clock runs more than
that behind the server's could still hide an edit: keep sources on local disks.

Only stamps are taken (`os.stat`); the one file read is a worktree's `commondir`
(a short path), as git reads it, so nothing an untrusted repository holds (its
config, its hooks) is ever looked at, let alone run.
"""

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SETTLED_NS = 2_000_000_000
"""How old (in ns) the newest stamp of a read must be when taken for the read to be kept: above any local file system's granularity."""
MAX_FOLDERS = 4096
"""The most ref folders stamped for one git source; a repository with more is read afresh every time."""
MAX_POINTER = 4096
"""The longest `.git` file or `commondir` file read to find a worktree's repository."""

Stamp = tuple[int, int, int, int, int] | None
"""Inode, mode, size, modification and change time (ns) of one path; None when it is missing. An identity is the first two only."""
LINK, FOLLOW, IDENTITY = "link", "follow", "identity"
"""How a path is stamped: its last link not followed, followed, or only which file it is (not when its contents changed)."""


def stamp(path: str, dir_fd: int | None = None, *, how: str = LINK) -> Stamp:
    """The stamp of `path` now (None when it is missing or cannot be looked at)."""
    try:
        status = os.stat(path, dir_fd=dir_fd, follow_symlinks=how == FOLLOW)
    except (OSError, ValueError):
        return None
    if how == IDENTITY:
        return (status.st_ino, status.st_mode, 0, 0, 0)
    return (status.st_ino, status.st_mode, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def of_status(status: os.stat_result) -> Stamp:
    """The stamp of an open file's status (`os.fstat`)."""
    return (status.st_ino, status.st_mode, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class Stamps:
    """The stamps a read was taken under, by path, and when they were taken (ns since the epoch)."""

    taken: int
    paths: tuple[tuple[str, str, Stamp], ...]
    """Each path, how it is stamped (`LINK`, `FOLLOW`, `IDENTITY`), and its stamp."""

    def fresh(self) -> bool:
        """Whether every path still has the stamp it had (so the read would give what it gave)."""
        return all(stamp(path, how=how) == was for path, how, was in self.paths)

    def settled(self) -> bool:
        """Whether every stamp was older than `SETTLED_NS` when taken: only then can an unchanged stamp mean an unchanged path."""
        newest = max((max(was[3], was[4]) for _, _, was in self.paths if was is not None), default=0)
        return newest < self.taken - SETTLED_NS


def now() -> int:
    """The time stamps are compared with: the wall clock, as file times are, in ns."""
    return time.time_ns()


def git_stamps(project: Path, prefix: str) -> Stamps | None:
    """The stamps of what `git for-each-ref <prefix>` reads in `project`'s repository, or None when its layout is not one known here.

    Known: a `.git` folder, or a `.git` file naming one (a worktree, a submodule),
    whose refs are loose files under `refs/`, lines of `packed-refs`, or tables
    listed in `reftable/tables.list`.
    """
    taken = now()
    dot_git = os.fspath(project / ".git")
    if os.path.isdir(dot_git):  # its own time changes with every index write: only which folder (or link) it is counts
        paths: list[tuple[str, str, Stamp]] = [(dot_git, IDENTITY, stamp(dot_git, how=IDENTITY))]
        git_dir = common = dot_git
    else:
        paths = [(dot_git, LINK, stamp(dot_git))]
        found = _pointed(dot_git, paths)
        if found is None:
            return None
        git_dir, common = found
    for where in (os.path.join(git_dir, "HEAD"), *(os.path.join(common, name) for name in ("packed-refs", "reftable", "reftable/tables.list"))):
        paths.append((where, FOLLOW, stamp(where, how=FOLLOW)))
    folders = list(_folders(os.path.join(common, prefix.rstrip("/"))))
    if len(folders) > MAX_FOLDERS:
        return None
    paths += folders
    return Stamps(taken, tuple(paths))


def _pointed(dot_git: str, paths: list[tuple[str, str, Stamp]]) -> tuple[str, str] | None:
    """The repository folder a `.git` file names and its common folder (a worktree's `commondir`), their pointers' stamps added to `paths`."""
    git_dir = _pointer(dot_git, "gitdir: ")
    if git_dir is None:
        return None
    git_dir = os.path.join(os.path.dirname(dot_git), git_dir)
    commondir = os.path.join(git_dir, "commondir")
    paths.append((commondir, FOLLOW, stamp(commondir, how=FOLLOW)))
    common = _pointer(commondir, "") if paths[-1][2] is not None else ""
    if common is None:
        return None
    return git_dir, os.path.join(git_dir, common) if common else git_dir


def _pointer(path: str, lead: str) -> str | None:
    """The path a small pointer file names after `lead` (one line), or None when it is not one."""
    try:
        with open(path, "rb") as file:
            text = file.read(MAX_POINTER + 1)
    except OSError:
        return None
    line = text.decode("utf-8", "replace").strip()
    if len(text) > MAX_POINTER or "\n" in line or not line.startswith(lead) or not line[len(lead):]:
        return None
    return line[len(lead):]


def _folders(top: str) -> Iterator[tuple[str, str, Stamp]]:
    """`top` and every folder below it (links below it not followed), each with its stamp taken before it is listed."""
    pending = [top]
    while pending:
        folder = pending.pop()
        how = FOLLOW if folder == top else LINK
        was = stamp(folder, how=how)
        yield folder, how, was
        if was is None:
            continue
        try:
            with os.scandir(folder) as entries:
                pending += [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:
            continue
