"""Live sources (C5): the choices of `git-branches`, `git-tags` and `files:<glob>`, read from the project when a form is delivered.

Reading a source is I/O (a `git` process, a walk of the project's folders), so it
runs in a worker thread (`guide.server.work`), never on the event loop, and it is
bounded: one time limit for all the sources of a read (git is killed when it
runs out), at most `MAX_CHOICES` values offered in a stable order (sorted by
name), each of at most `MAX_CHOICE_LENGTH` characters and `MAX_OFFERED` in all
(what passes is left out and counted in one log line), git's output read line by
line and each line cut as it comes (`LINE_BYTES`: `packed-refs` takes names of
any length), and at most `MAX_VISITED` folder entries looked at by a glob. A source
that cannot be read gives an `Unreadable` with one line saying what and what to
fix; the details (git's own message) go to the log, once.

Nothing outside the project is reached: git is pointed at the project folder's
own `.git` (no search in the folders above it), and a glob walks the project's
folders without following any symbolic link (a link is never listed either).
"""

import logging
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path
from typing import cast

from guide.forms.declare import FormSet
from guide.forms.sources import FILES, GIT_BRANCHES, MAX_CHOICE_LENGTH, MAX_CHOICES, Live, Source, Unreadable, within_bounds
from guide.project.kept import KeptReads
from guide.project.stamps import FOLLOW, LINK, Stamp, Stamps, git_stamps, now, of_status, stamp

TIME_LIMIT = 5.0
"""Seconds all the live sources of one read may take together; git is killed when they run out."""
MAX_VISITED = 200_000
"""The most folder entries one `files:` glob looks at; a glob that needs more is refused (narrow it)."""
MAX_DEPTH = 64
"""The deepest folder a glob enters below the project (each level holds an open folder while it is walked)."""
MAX_REFS = 100_000
"""The most refs read to check a value a caller named (a keyword or arg) beyond the offered ones."""
LINE_BYTES = 4 * (MAX_CHOICE_LENGTH + 64)
"""The most bytes of one line of git's output kept: a name of `MAX_CHOICE_LENGTH` characters fits whole, and a longer one is kept
long enough to be known too long (UTF-8 takes at most 4 bytes a character)."""
ERROR_BYTES = 4096
"""The most bytes of git's error output kept (its first line goes to the log)."""
ON_LOOP_STAMPS = 32
"""The most paths whose stamps a kept read may have for it to be checked on the event loop (a git source has about ten)."""
_REFS = {GIT_BRANCHES: "refs/heads/", "git-tags": "refs/tags/"}
_WILD = re.compile(r"[*?\[]")
log = logging.getLogger("guide")


def derive(forms: FormSet, project: Path, supplied: Mapping[str, Sequence[str]] | None = None, *, time_limit: float | None = None,
           only: str | None = None, kept: KeptReads | None = None) -> dict[str, Live]:
    """What each live-sourced field of `forms` offers now, read from `project`.

    `supplied` (keyword texts by field) are kept if they exist; `only` names the one field to read (completion).

    A value a caller supplies is checked against the whole source, not only the
    first `MAX_CHOICES` offered, so it is added to the field's choices when the
    source holds it.
    """
    deadline = time.monotonic() + (TIME_LIMIT if time_limit is None else time_limit)
    return cast(dict[str, Live], _each(forms, supplied, lambda source, wanted: read_source(source, project, wanted, deadline, kept), only))


def known(forms: FormSet, project: Path, supplied: Mapping[str, Sequence[str]] | None, kept: KeptReads) -> dict[str, Live] | None:
    """What each live-sourced field offers now if every one of its reads is kept and unchanged, else None.

    It only looks at the stamps of at most `ON_LOOP_STAMPS` paths a source (no process, no walk), so it may run on the event loop.
    """
    return _each(forms, supplied, lambda source, wanted: _kept(source, project, wanted, kept))


def _each(forms: FormSet, supplied: Mapping[str, Sequence[str]] | None, read: Callable[[Source, tuple[str, ...]], Live | None],
          only: str | None = None) -> dict[str, Live] | None:
    """What `read` gives each live-sourced field (or the one named `only`), each source read once for the values supplied for it;
    None as soon as one gives None."""
    supplied = supplied or {}
    read_before: dict[tuple[Source, tuple[str, ...]], Live] = {}
    live: dict[str, Live] = {}
    for name, (_, field) in forms.fields.items():
        if not field.live or field.source is None or (only is not None and name != only):
            continue
        wanted = tuple(sorted({part.strip() for text in supplied.get(name, ()) for part in (text.split(",") if field.type.many else [text])}))
        key = (field.source, wanted)
        if key not in read_before:
            found = read(field.source, wanted)
            if found is None:
                return None
            read_before[key] = found
        live[name] = read_before[key]
    return live


def read_source(source: Source, project: Path, wanted: Sequence[str] = (), deadline: float | None = None, kept: KeptReads | None = None) -> Live:
    """The choices `source` gives in `project` now (at most `MAX_CHOICES`, sorted, plus each of `wanted` it holds), or why not.

    With `kept`, a read made before is used while nothing it read changed (`guide.project.kept`).
    """
    deadline = time.monotonic() + TIME_LIMIT if deadline is None else deadline
    try:
        found = _found(source, project, bool(wanted), deadline, kept)
    except _Cannot as cannot:
        if cannot.detail:
            log.warning("source %s cannot be read in the project %s: %s", source, project, cannot.detail)
        return Unreadable(f"source {source} {cannot.message}")
    return _offered(source, project, found, wanted)


def _offered(source: Source, project: Path, found: Sequence[str], wanted: Sequence[str]) -> Live:
    """The choices of what a source found: the first `MAX_CHOICES` by name within the bounds, then each of `wanted` it holds."""
    if not found:
        return Unreadable(f"source {source} {_nothing(source)}")
    ordered = sorted(set(found))
    offered = _bounded(source, project, ordered)
    if isinstance(offered, Unreadable):
        return offered
    held = set(ordered)
    return offered + tuple(value for value in wanted if value in held and len(value) <= MAX_CHOICE_LENGTH and value not in offered)


def _bounded(source: Source, project: Path, ordered: list[str]) -> tuple[str, ...] | Unreadable:
    """The values of `ordered` a source offers within its bounds (`within_bounds`); what it left out is logged in one line."""
    chosen = within_bounds(ordered)
    note = chosen.note()
    if note:
        log.warning("source %s in the project %s %s", source, project, note)
    if not chosen.values:
        return Unreadable(f"source {source} has no value Guide can offer: it {note}; shorten them, or use another source")
    return chosen.values


def _kept(source: Source, project: Path, wanted: Sequence[str], kept: KeptReads) -> Live | None:
    """The choices of a kept read of `source` that is still fresh (looking at `ON_LOOP_STAMPS` paths at most), else None."""
    found = kept.recall(_key(source, project, bool(wanted)), ON_LOOP_STAMPS)
    return None if found is None else _offered(source, project, found, wanted)


def _key(source: Source, project: Path, everything: bool) -> tuple:
    """What a read of `source` is kept under: a glob walks everything anyway; git reads the first refs or all of them."""
    return (source, project) if source.kind == FILES else (source, project, everything)


def _found(source: Source, project: Path, everything: bool, deadline: float, kept: KeptReads | None) -> Sequence[str]:
    """The names `source` holds in `project` (the first `MAX_CHOICES` refs, or all of them for `everything`), kept while unchanged."""
    if source.kind == FILES:
        read: Callable[[], tuple[Sequence[str], Stamps | None]] = partial(_files, source.argument, project, deadline)
    else:
        read = partial(_refs, source.kind, project, everything, deadline)
    return kept.found(_key(source, project, everything), read) if kept is not None else read()[0]


@dataclass
class _Cannot(Exception):
    """A source cannot be read: the line a caller sees, and the detail only the log gets."""

    message: str
    detail: str = ""


def _nothing(source: Source) -> str:
    if source.kind == FILES:
        return "matches no file in the project; add a matching file or change the glob"
    if source.kind == GIT_BRANCHES:
        return "found no branch in the project's repository; make a first commit (an empty repository has no branch)"
    return "found no tag in the project's repository; create one with `git tag`, or use another source"


def _refs(kind: str, project: Path, everything: bool, deadline: float) -> tuple[list[str], Stamps | None]:
    """The names of the project repository's branches or tags (`refs/heads/`, `refs/tags/`), in git's order, and the stamps they were read under."""
    prefix = _REFS[kind]
    dot_git = project / ".git"
    if not os.path.lexists(dot_git):
        raise _Cannot("cannot be read: the project folder is not a git repository (it has no .git); name a project that is one, or use another source")
    stamps = git_stamps(project, prefix)  # taken before git reads: a change while it runs gives new stamps
    count = MAX_REFS if everything else MAX_CHOICES
    command = ["git", f"--git-dir={dot_git}", "for-each-ref", f"--count={count}", "--format=%(refname)", prefix]
    output = _run(command, project, deadline)
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)], stamps


def _run(command: list[str], cwd: Path, deadline: float) -> str:
    """The standard output of `command`, run without a shell in its own process group, killed (with its children) at `deadline`."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Cannot(f"was not read: the read's sources took their whole time limit ({TIME_LIMIT:g} s); try again")
    try:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as error:
        raise _Cannot("cannot be read: git could not be started where the server runs (is it installed?)", str(error)) from None
    try:
        out, err = _communicate(process, remaining)
    except subprocess.TimeoutExpired:
        _kill(process)
        message = f"cannot be read: git did not answer within the time limit ({TIME_LIMIT:g} s); try again, or check the repository"
        raise _Cannot(message, "git timed out and was stopped") from None
    if process.returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()
        raise _Cannot(f"cannot be read: git failed (exit {process.returncode}); the server log says why", said[0] if said else "")
    return out.decode("utf-8", "replace")


def _communicate(process: subprocess.Popen, timeout: float) -> tuple[bytes, bytes]:
    """What `process` writes until it ends: each line of its output cut to `LINE_BYTES` as it comes, its errors' first `ERROR_BYTES`.

    Like `Popen.communicate`, but what is kept is bounded whatever git writes
    (100 branch names of 200 KB each are 20 MB): a value longer than a source
    offers is never held whole, only enough of it to be known too long.
    """
    out, err = _Lines(LINE_BYTES), bytearray()
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        selector.register(process.stderr, selectors.EVENT_READ)  # type: ignore[arg-type]
        while selector.get_map():
            remaining = deadline - time.monotonic()
            ready = selector.select(remaining) if remaining > 0 else []
            if not ready:
                raise subprocess.TimeoutExpired(process.args, timeout)
            for key, _ in ready:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.fileobj is process.stdout:
                    out.feed(chunk)
                else:
                    err += chunk[: max(0, ERROR_BYTES - len(err))]
    process.wait(max(0.0, deadline - time.monotonic()))
    return out.text(), bytes(err)


class _Lines:
    """Output gathered line by line, each line cut to `longest` bytes (the rest of a long line is dropped as it comes)."""

    def __init__(self, longest: int):
        self.longest = longest
        self.kept = bytearray()
        self.line = 0
        """Bytes of the current line seen so far."""

    def feed(self, chunk: bytes) -> None:
        """Take the next chunk of output."""
        parts = chunk.split(b"\n")
        for index, part in enumerate(parts):
            if index:
                self.kept += b"\n"
                self.line = 0
            room = self.longest - self.line
            if room > 0:
                self.kept += part[:room]
            self.line += len(part)

    def text(self) -> bytes:
        """Every line kept, each cut to `longest` bytes."""
        return bytes(self.kept)


def _kill(process: subprocess.Popen) -> None:
    """Kill a timed-out git and everything it started (its process group), then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.communicate()


def _files(glob: str, project: Path, deadline: float) -> tuple[list[str], Stamps]:
    """Every regular file under `project` whose relative path matches `glob` (no symbolic link is followed or listed), and the stamps of the folders walked."""
    taken = now()
    try:
        top = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise _Cannot("cannot be read: the project folder cannot be opened", str(error)) from None
    walk = _Walk(glob.split("/"), deadline, os.fspath(project))
    try:
        walk.stamps.append((walk.top, FOLLOW, of_status(os.fstat(top))))
        walk.folder(top, "", 0)
    finally:
        os.close(top)
    return walk.found, Stamps(taken, tuple(walk.stamps))


class _Walk:
    """One glob's walk of the project, by open folder descriptors (a folder swapped for a link meanwhile is not entered)."""

    def __init__(self, segments: list[str], deadline: float, top: str):
        self.segments = segments + ["*"] if segments[-1] == "**" else segments
        self.deadline = deadline
        self.top = top
        self.visited = 0
        self.found: list[str] = []
        self.stamps: list[tuple[str, str, Stamp]] = []
        """Each folder entered or tried, as it was before it was listed: a name added or removed there changes its stamp."""

    def folder(self, fd: int, rel: str, at: int) -> None:
        """Match `segments[at:]` inside the open folder `fd` (whose path in the project is `rel`)."""
        if rel.count("/") >= MAX_DEPTH:
            return
        segment, last = self.segments[at], at == len(self.segments) - 1
        if segment == "**":
            self.folder(fd, rel, at + 1)
            for name in self._entries(fd, "*", folders=True):
                self._enter(fd, rel, name, at)
            return
        if last:
            self.found += [f"{rel}{name}" for name in self._entries(fd, segment, folders=False)]
            return
        names = [segment] if not _WILD.search(segment) else self._entries(fd, segment, folders=True)
        for name in names:
            self._enter(fd, rel, name, at + 1)

    def _enter(self, fd: int, rel: str, name: str, at: int) -> None:
        path = os.path.join(self.top, rel, name)
        try:
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            self.stamps.append((path, LINK, stamp(name, fd)))
            return  # not a folder, a link, gone or unreadable: nothing under it matches
        try:
            self.stamps.append((path, LINK, of_status(os.fstat(child))))
            self.folder(child, f"{rel}{name}/", at)
        finally:
            os.close(child)

    def _entries(self, fd: int, pattern: str, *, folders: bool) -> Iterator[str]:
        """The names in folder `fd` matching `pattern` that are folders (or regular files), never links; hidden ones only if the pattern says so."""
        try:
            entries = list(os.scandir(fd))
        except OSError:
            return
        for entry in entries:
            self.visited += 1
            if self.visited > MAX_VISITED or (self.visited % 512 == 0 and time.monotonic() > self.deadline):
                raise _Cannot(_too_big(self.visited > MAX_VISITED))
            if entry.name.startswith(".") and not pattern.startswith("."):
                continue
            if not fnmatchcase(entry.name, pattern):
                continue
            try:  # the entry's own type (no link followed), from the folder listing when the file system gives it
                kind = entry.is_dir(follow_symlinks=False) if folders else entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if kind:
                yield entry.name


def _too_big(entries: bool) -> str:
    if entries:
        return f"cannot be read: the glob looks at more than {MAX_VISITED:,} entries; narrow it (for example `docs/**/*.md` instead of `**/*`)"
    return f"cannot be read: the glob took longer than the time limit ({TIME_LIMIT:g} s); narrow it"
