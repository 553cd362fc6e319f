"""The `source:` of a field (C5): which sources there are, how one is written, and what each needs.

A source derives a field's choices instead of a declared `enum`. This module
only reads and checks what an author wrote; deriving the choices (reading git or
the project's files) is the docroot's job (`guide.project.sources`), and the pure
step receives them as plain values (`Request.live`).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from guide.spelling import near_miss

WORKFLOW_PHASES = "workflow-phases"
GIT_BRANCHES = "git-branches"
GIT_TAGS = "git-tags"
FILES = "files"
LIST = "list"
NAMED = (WORKFLOW_PHASES, GIT_BRANCHES, GIT_TAGS)
"""Sources written as a bare name."""
PREFIXED = (FILES, LIST)
"""Sources written `<name>:<argument>`."""
LIVE = frozenset({GIT_BRANCHES, GIT_TAGS, FILES})
"""Sources read from the project when a form is delivered: their choices are known only then."""
PROJECT = frozenset({WORKFLOW_PHASES, GIT_BRANCHES, GIT_TAGS, FILES})
"""Sources that read the project: only commands may use them (a skill is read without one)."""
ACCEPTED = "workflow-phases, git-branches, git-tags, files:<glob>, list:<name>"
MAX_GLOB = 200
"""The longest `files:` glob; a longer one is an authoring mistake."""

_LIST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Source:
    """A field's source as written: its kind and, for `files:` and `list:`, its argument."""

    kind: str
    argument: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.argument}" if self.kind in PREFIXED else self.kind

    @property
    def live(self) -> bool:
        """Whether its choices are read from the project when the form is delivered."""
        return self.kind in LIVE


def parse_source(text: object, lists: frozenset[str] | set[str] = frozenset()) -> Source | str:
    """The source `text` names, or one line saying what is wrong with it and what is accepted."""
    if not isinstance(text, str):
        return f"`source` must be text; accepted: {ACCEPTED}"
    kind, colon, argument = text.partition(":")
    if kind in NAMED and not colon:
        return Source(kind)
    if kind in PREFIXED and colon:
        problem = glob_problem(argument) if kind == FILES else _list_problem(argument, lists)
        return f"source {text!r}: {problem}" if problem else Source(kind, argument)
    if kind in PREFIXED:
        return f"source {text!r} needs an argument: write `{kind}:<{'glob' if kind == FILES else 'name'}>`"
    resembled = near_miss(kind, (*NAMED, *PREFIXED))
    if resembled in PREFIXED:
        return f"unknown source {text!r}; did you mean `{resembled}:{argument or '...'}`? (accepted: {ACCEPTED})"
    if resembled:
        return f"unknown source {text!r}; did you mean `{resembled}`? (accepted: {ACCEPTED})"
    return f"unknown source {text!r}; accepted: {ACCEPTED}"


def glob_problem(glob: str) -> str | None:
    """What makes a `files:` glob unusable (None when it is fine): it must stay inside the project."""
    if not glob:
        return "the glob is empty; write for example `files:docs/**/*.md`"
    if len(glob) > MAX_GLOB:
        return f"the glob is {len(glob)} characters long; at most {MAX_GLOB}"
    if glob.startswith("/") or "\\" in glob or re.match(r"[A-Za-z]:", glob):
        return "the glob must be a relative path with `/` (it is read inside the project, never outside it)"
    for segment in glob.split("/"):
        if segment in (".", ".."):
            return f"the glob has a {segment!r} path segment; name folders inside the project only"
        if not segment:
            return "the glob has an empty path segment (`//` or a trailing `/`)"
        if "**" in segment and segment != "**":
            return f"`**` must be a whole path segment (as in `docs/**/*.md`), not part of {segment!r}"
        if _bracket_problem(segment):
            return f"the glob segment {segment!r} has an unclosed `[`"
    return None


def _bracket_problem(segment: str) -> bool:
    """Whether a `[` in the segment opens a character class that never closes."""
    at = 0
    while (at := segment.find("[", at)) != -1:
        end = segment.find("]", at + 2 if segment[at + 1 : at + 2] in ("!", "]") else at + 1)
        if end == -1:
            return True
        at = end + 1
    return False


def _list_problem(name: str, lists: frozenset[str] | set[str]) -> str | None:
    if not _LIST_NAME.fullmatch(name):
        return "a list name is letters, digits, '-' or '_'"
    if name in lists:
        return None
    resembled = near_miss(name, lists)
    if resembled:
        return f"guide.yaml has no list {name!r}; did you mean `list:{resembled}`?"
    known = f" (it has: {', '.join(sorted(lists))})" if lists else " (it has no `lists:`)"
    return f"guide.yaml has no list {name!r}; add it under `lists:` in guide.yaml{known}"


MAX_CHOICES = 100
"""The most choices a source offers: the most a completion answer holds (the MCP cap), and plenty for a form."""
MAX_CHOICE_LENGTH = 1024
"""The longest value a source offers, in characters (a branch name, a file's path); a longer one is left out."""
MAX_OFFERED = 32 * 1024
"""The most characters a source's values take together; the values past it are left out."""


@dataclass(frozen=True)
class Offered:
    """What a source offers of the values it holds, and how many it left out by `within_bounds`."""

    values: tuple[str, ...]
    too_long: int = 0
    """Values longer than `MAX_CHOICE_LENGTH`."""
    past_total: int = 0
    """Values that would have been offered but for `MAX_OFFERED`."""

    def note(self) -> str | None:
        """What was left out, counted in a few words ("left out 3 values longer than ..."), or None when nothing was."""
        parts = ([f"{self.too_long:,} values longer than {MAX_CHOICE_LENGTH:,} characters"] if self.too_long else []) + (
            [f"{self.past_total:,} values past the {MAX_OFFERED:,} characters a source offers in all"] if self.past_total else [])
        return f"left out {' and '.join(parts)}" if parts else None


def within_bounds(ordered: Iterable[str], count: int = MAX_CHOICES) -> Offered:
    """The first `count` of `ordered` that fit `MAX_CHOICE_LENGTH` each and `MAX_OFFERED` together, and how many were left out."""
    kept: list[str] = []
    too_long = past_total = total = 0
    for value in ordered:
        if len(kept) + past_total >= count:
            break
        if len(value) > MAX_CHOICE_LENGTH:
            too_long += 1
        elif total + len(value) > MAX_OFFERED:
            past_total += 1
        else:
            kept.append(value)
            total += len(value)
    return Offered(tuple(kept), too_long, past_total)


@dataclass(frozen=True)
class Unreadable:
    """A live source that could not be read when the form was delivered: one line saying what and what to fix."""

    message: str


Live = tuple[str, ...] | Unreadable
"""What a live source gave for one read: its choices in a stable order, or why there are none."""
