"""Live sources (C5): the choices of `git-branches`, `git-tags` and `files:<glob>`, read from the project when a form is delivered.

Reading a source is I/O (a `git` process, a walk of the project's folders), so it
runs in a worker thread (`guide.server.work`), never on the event loop, and it is
bounded: one time limit for all the sources of a read (git is killed when it
runs out), at most `MAX_CHOICES` values offered in a stable order (sorted by
name), and at most `MAX_VISITED` folder entries looked at by a glob. A source
that cannot be read gives an `Unreadable` with one line saying what and what to
fix; the details (git's own message) go to the log, once.

Nothing outside the project is reached: git is pointed at the project folder's
own `.git` (no search in the folders above it), and a glob walks the project's
folders without following any symbolic link (a link is never listed either).
"""

import logging
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from guide.forms.declare import FormSet
from guide.forms.sources import FILES, GIT_BRANCHES, MAX_CHOICES, Live, Source, Unreadable

TIME_LIMIT = 5.0
"""Seconds all the live sources of one read may take together; git is killed when they run out."""
MAX_VISITED = 200_000
"""The most folder entries one `files:` glob looks at; a glob that needs more is refused (narrow it)."""
MAX_DEPTH = 64
"""The deepest folder a glob enters below the project (each level holds an open folder while it is walked)."""
MAX_REFS = 100_000
"""The most refs read to check a value a caller named (a keyword or arg) beyond the offered ones."""
_REFS = {GIT_BRANCHES: "refs/heads/", "git-tags": "refs/tags/"}
_WILD = re.compile(r"[*?\[]")
log = logging.getLogger("guide")


def derive(forms: FormSet, project: Path, supplied: Mapping[str, Sequence[str]] | None = None, *, time_limit: float | None = None,
           only: str | None = None) -> dict[str, Live]:
    """What each live-sourced field of `forms` offers now, read from `project`.

    `supplied` (keyword texts by field) are kept if they exist; `only` names the one field to read (completion).

    A value a caller supplies is checked against the whole source, not only the
    first `MAX_CHOICES` offered, so it is added to the field's choices when the
    source holds it.
    """
    deadline = time.monotonic() + (TIME_LIMIT if time_limit is None else time_limit)
    supplied = supplied or {}
    read: dict[tuple[Source, tuple[str, ...]], Live] = {}
    live: dict[str, Live] = {}
    for name, (_, field) in forms.fields.items():
        if not field.live or (only is not None and name != only):
            continue
        wanted = tuple(sorted({part.strip() for text in supplied.get(name, ()) for part in (text.split(",") if field.type.many else [text])}))
        key = (field.source, wanted)
        if key not in read:
            read[key] = read_source(field.source, project, wanted, deadline)
        live[name] = read[key]
    return live


def read_source(source: Source, project: Path, wanted: Sequence[str] = (), deadline: float | None = None) -> Live:
    """The choices `source` gives in `project` now (at most `MAX_CHOICES`, sorted, plus each of `wanted` it holds), or why not."""
    deadline = time.monotonic() + TIME_LIMIT if deadline is None else deadline
    try:
        found = _files(source.argument, project, deadline) if source.kind == FILES else _refs(source.kind, project, bool(wanted), deadline)
    except _Cannot as cannot:
        if cannot.detail:
            log.warning("source %s cannot be read in the project %s: %s", source, project, cannot.detail)
        return Unreadable(f"source {source} {cannot.message}")
    if not found:
        return Unreadable(f"source {source} {_nothing(source)}")
    ordered = sorted(set(found))
    offered = ordered[:MAX_CHOICES]
    held = set(ordered)
    return tuple(offered + [value for value in wanted if value in held and value not in offered[:MAX_CHOICES]])


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


def _refs(kind: str, project: Path, everything: bool, deadline: float) -> list[str]:
    """The names of the project repository's branches or tags (`refs/heads/`, `refs/tags/`), in git's order."""
    prefix = _REFS[kind]
    dot_git = project / ".git"
    if not os.path.lexists(dot_git):
        raise _Cannot("cannot be read: the project folder is not a git repository (it has no .git); name a project that is one, or use another source")
    count = MAX_REFS if everything else MAX_CHOICES
    command = ["git", f"--git-dir={dot_git}", "for-each-ref", f"--count={count}", "--format=%(refname)", prefix]
    output = _run(command, project, deadline)
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)]


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
        out, err = process.communicate(timeout=remaining)
    except subprocess.TimeoutExpired:
        _kill(process)
        message = f"cannot be read: git did not answer within the time limit ({TIME_LIMIT:g} s); try again, or check the repository"
        raise _Cannot(message, "git timed out and was stopped") from None
    if process.returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()
        raise _Cannot(f"cannot be read: git failed (exit {process.returncode}); the server log says why", said[0] if said else "")
    return out.decode("utf-8", "replace")


def _kill(process: subprocess.Popen) -> None:
    """Kill a timed-out git and everything it started (its process group), then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.communicate()


def _files(glob: str, project: Path, deadline: float) -> list[str]:
    """Every regular file under `project` whose relative path matches `glob`; no symbolic link is followed or listed."""
    try:
        top = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise _Cannot("cannot be read: the project folder cannot be opened", str(error)) from None
    walk = _Walk(glob.split("/"), deadline)
    try:
        walk.folder(top, "", 0)
    finally:
        os.close(top)
    return walk.found


class _Walk:
    """One glob's walk of the project, by open folder descriptors (a folder swapped for a link meanwhile is not entered)."""

    def __init__(self, segments: list[str], deadline: float):
        self.segments = segments + ["*"] if segments[-1] == "**" else segments
        self.deadline = deadline
        self.visited = 0
        self.found: list[str] = []

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
        try:
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            return  # not a folder, a link, gone or unreadable: nothing under it matches
        try:
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
