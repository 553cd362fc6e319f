"""What has been built from one docroot snapshot: texts read, parses, entrypoints, listings and renders.

This is the one place that keeps what was made, so it is the one place to look
for what is cached and for how long:

- **Lifetime.** A `Built` lives exactly as long as its snapshot serves. When files
  change, `Docroot` makes a new one and hands it the per-file work of every file
  whose stamp did not change; everything else starts afresh.
- **Per file**: the frontmatter (from the store's kept parses when the file's
  stamp matches, else read and parsed) and the forms it declares. A listing
  needs only these, so it keeps no text. A file's text and the template facts of
  its body are read when needed and kept in bounded memos: a check of every file
  keeps the last thousand or so, and a render reads a body it lost again.
- **Per snapshot**: entrypoints and their checks, aliases, names and summaries,
  whole listings, and bounded memos (renders, resolved reads) that callers above
  name (`memo`, `remember`).
- **Threads.** Worker threads build at once. A value is computed outside any lock
  and published under one: a build's values under its `_lock`, a memo's entries
  under the lock that guards the memo, the per-file work as whole records
  replaced under the lock of `Works` (`guide.docroot.filework`), which a build
  shares with the builds made from it. The one exception, the partial graph's
  tables (`guide.docroot.partials`), only gain entries, by one assignment each of
  what any thread would compute alike, and are never gone through. Two threads
  may compute the same value (the same result), but none waits for another's
  parse, and nothing is gone through while another thread may add to it.
- **The fast path.** `peek` and `recall` answer only from what is built and never
  build: the server uses them on the event loop, and does anything else in a worker.
"""

import threading
import time
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from guide.docroot import entrypoints, files
from guide.docroot.config import REQUIRES, Config
from guide.docroot.entrypoints import Entrypoint, Findings, Kind
from guide.docroot.filework import Works
from guide.docroot.frontmatter import Front, FrontmatterError, Parsed, Summary, listed, split, summary
from guide.docroot.layout import Layout
from guide.docroot.memo import Memo
from guide.docroot.partials import Expansion, Indentation, PartialGraph, expansion_problem
from guide.docroot.snapshot import Snapshot, same_files
from guide.docroot.store.parses import StoredParses, digest
from guide.errors import Problem
from guide.forms.declare import Form, declare_forms
from guide.render import TemplateFacts, inspect

T = TypeVar("T")
MISSING: Any = object()
"""What `peek` and `recall` return when the value has not been built."""
NO_TEMPLATE = TemplateFacts(None, ())
MEMO_SIZES = {"renders": 1024, "resolved": 1024, "answered": 1024, "components": 1024, "choices": 64, "texts": 1024, "templates": 2048}
"""The bounded memos, with how many values each keeps (the oldest goes first): callers above name the first five;
a file's text and template facts are kept in the last two, so a check of every file keeps no more than these."""
MEMO_CHARACTERS = {name: 8 * 1024 * 1024 for name in MEMO_SIZES} | {"texts": 64 * 1024 * 1024, "templates": 16 * 1024 * 1024}
"""How many characters each memo keeps at most, keys and values together: eight renders at the output cap, or 64 files
at the file size cap (a render reads a text it lost again)."""


class Built:
    """Everything built so far from one snapshot, and the questions asked of it (commands, skills, listings, reports)."""

    def __init__(self, snapshot: Snapshot, *, limit: int, parses: StoredParses | None = None, previous: "Built | None" = None):
        """`limit`: the largest file read, in bytes; `parses`: the store's kept parses; `previous`: the build this one replaces."""
        self.snapshot = snapshot
        self.limit = limit
        self.parses = parses
        self._lock = threading.Lock()
        self._files: Works = Works(snapshot.sources, previous._files if previous is not None else None)
        self._values: dict[Hashable, Any] = {}
        self._memos: dict[str, Memo[Any]] = {name: Memo(MEMO_SIZES[name], MEMO_CHARACTERS[name]) for name in MEMO_SIZES}
        self._graph = PartialGraph(snapshot.layout.partials, lambda name: self.template(snapshot.layout.partials[name]))

    # What the snapshot says, for callers that have only the build.

    @property
    def root(self) -> Path:
        """The real docroot folder."""
        return self.snapshot.root

    @property
    def config(self) -> Config:
        """guide.yaml as read."""
        return self.snapshot.config

    @property
    def config_ok(self) -> bool:
        """Whether guide.yaml was read without problems."""
        return not self.snapshot.config_problems

    @property
    def layout(self) -> Layout:
        """Which file serves which role."""
        return self.snapshot.layout

    @property
    def partials(self) -> dict[str, str]:
        """The file of each partial, by name."""
        return self.snapshot.layout.partials

    # Per file.

    def front(self, rel: str) -> Front | FrontmatterError:
        """The frontmatter of a template file, or why it cannot be read (the kept parse when the stamp fits, else parsed)."""
        found = self._files.get(rel).front
        if found is None:
            found = self._kept(rel)
        if found is None:
            parsed = self._parse(rel)  # the text is not kept: a listing needs only the frontmatter
            found = parsed.front if isinstance(parsed, Parsed) else parsed
        return found

    def parsed(self, rel: str) -> Parsed | FrontmatterError:
        """The text of a template file with its frontmatter read (read now unless it is among the texts kept)."""
        found = self.recall("texts", rel)
        if found is MISSING:
            found = self.remember("texts", rel, self._parse(rel))
        return found

    def template(self, rel: str) -> TemplateFacts:
        """The body's Mustache syntax error, the partials it includes and the names it looks up (nothing for an unreadable file)."""
        found = self.recall("templates", rel)
        if found is MISSING:
            parsed = self.parsed(rel)
            found = self.remember("templates", rel, inspect(parsed.body) if isinstance(parsed, Parsed) else NO_TEMPLATE)
        return found

    def declared(self, rel: str, allow_source: bool) -> tuple[tuple[Form, ...], tuple]:
        """The forms a file declares, with their problems (one file may be included by many entrypoints)."""
        key = (allow_source, self.config.phases)
        found = self._files.get(rel).declared.get(key)
        if found is None:
            front = self.front(rel)
            meta = front.meta if isinstance(front, Front) else {}
            forms, issues = declare_forms(meta.get("elicitation"), origin=rel, fallback_all=meta.get("fallback"), allow_source=allow_source, phases=key[1])
            found = self._files.note_declared(rel, key, (tuple(forms), tuple(issues)))
        return found

    def partial_loop(self, names: Iterable[str]) -> list[str] | None:
        """A loop of partials that rendering these names would enter, if any."""
        return self._graph.loop_through(names)

    def expansion(self, rel: str) -> Expansion:
        """How many characters the partials of a template file expand to, counted without rendering."""
        return self._graph.expansion(self.template(rel))

    def indentation(self, rel: str) -> Indentation:
        """How far the engine may indent each partial a template file reaches, and what that indenting costs."""
        return self.value(("indentation", rel), lambda: self._graph.indentation(self.template(rel)))

    def partials_reached(self, names: Iterable[str]) -> list[str]:
        """Every partial these names include, directly or through other partials."""
        return self._graph.reachable(names)

    def allows(self, rel: str) -> bool:
        """Whether a template file's `requires-*` hold under this configuration (an unreadable one applies: its problem is reported)."""
        if not self._mentions(rel, REQUIRES):
            return True
        front = self.front(rel)
        return isinstance(front, FrontmatterError) or self.config.allows(front.meta)

    def partial_body(self, name: str) -> str | None:
        """The body `{{>name}}` renders: the partial's, when it exists and its `requires-*` hold (C9)."""
        rel = self.partials.get(name)
        if rel is None or not self.allows(rel):
            return None
        parsed = self.parsed(rel)
        return parsed.body if isinstance(parsed, Parsed) else None

    # Entrypoints.

    def entrypoint(self, kind: Kind, name: str) -> Entrypoint:
        """The built entrypoint of that kind and name (which must exist in the layout)."""
        return self._built(kind, name)[0]

    def checks(self, entrypoint: Entrypoint) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
        """An entrypoint's problems (what makes it unusable) and notes, found when first asked for (they read its body)."""
        kind, name = entrypoint.kind, entrypoint.name
        return self.value(("checks", kind, name), lambda: entrypoints.check(entrypoint, self._built(kind, name)[1], self))

    def problems(self, entrypoint: Entrypoint) -> tuple[Problem, ...]:
        """What makes an entrypoint unusable (authoring errors)."""
        return self.checks(entrypoint)[0]

    def applies(self, kind: Kind, name: str) -> bool:
        """Whether a command or skill of that name exists under this configuration (its `requires-*` hold, C4)."""
        rel = self.snapshot.table(kind).get(name)
        return rel is not None and self.allows(rel)

    def command(self, name: str) -> Entrypoint | None:
        """The command answering to a name or alias, if it applies to this configuration."""
        name = name if name in self.snapshot.layout.commands else self.aliases().get(name, name)
        return self.entrypoint("command", name) if self.applies("command", name) else None

    def skill(self, name: str) -> Entrypoint | None:
        """The skill of that name, if it applies to this configuration."""
        return self.entrypoint("skill", name) if self.applies("skill", name) else None

    def find_command(self, segments: tuple[str, ...]) -> tuple[Entrypoint, tuple[str, ...]] | None:
        """The command named by the longest leading run of `segments`, and the segments left as its args.

        A command's own name is looked for first; aliases only when no name
        matches (so finding a command by name never reads every file for aliases).
        """
        commands = self.snapshot.layout.commands
        by_name = self._longest(segments, self.name_depth(), lambda name: name if name in commands else None)
        return by_name or self._longest(segments, self.value("alias depth", lambda: _depth(self.aliases())), self.aliases().get)

    def name_depth(self) -> int:
        """The most segments any command name has: no longer run of an address can name one."""
        return self.value("name depth", lambda: _depth(self.snapshot.layout.commands))

    def aliases(self) -> dict[str, str]:
        """Each alias of an applying command, mapped to the command's name."""
        return self.value("aliases", self._aliases)

    def names(self, kind: Kind) -> list[str]:
        """The name of every command or skill that applies, sorted."""
        return self.value((kind, "names"), lambda: [name for name in sorted(self.snapshot.table(kind)) if self.applies(kind, name)])

    def every(self, kind: Kind) -> list[Entrypoint]:
        """Every command or skill that applies, sorted by name (each one built)."""
        return self.value((kind, "every"), lambda: [self.entrypoint(kind, name) for name in self.names(kind)])

    def descriptions(self, kind: Kind) -> list[tuple[str, str]]:
        """Name and description of every command or skill that applies, from frontmatter alone (no form is declared)."""
        return self.value((kind, "descriptions"), lambda: [(name, self._description(kind, name)) for name in self.names(kind)])

    def member(self, skill: str, member: str) -> str | None:
        """The file of a skill member, if the skill applies and has it."""
        rel = self.snapshot.layout.members.get((skill, member))
        return rel if rel and self.applies("skill", skill) else None

    def document(self, path: str) -> str | None:
        """The file of a document addressed by its path without extension, if it applies to this configuration (C2)."""
        rel = self.snapshot.layout.documents.get(path)
        return rel if rel is not None and self._document_applies(rel) else None

    def documents(self) -> dict[str, str]:
        """The file of every document that applies, by its path without extension, sorted (from frontmatter alone)."""
        layout = self.snapshot.layout
        return self.value("documents", lambda: {path: rel for path, rel in sorted(layout.documents.items()) if self._document_applies(rel)})

    def document_description(self, rel: str) -> str:
        """A document's `description` from its frontmatter: empty without one (and for `.txt`, `.json` or YAML, C2)."""
        return self._summary(rel).description if rel in self.snapshot.sources else ""

    def report(self) -> tuple[list[Problem], list[Problem]]:
        """Every authoring problem and note of the docroot: config, layout, partials and entrypoints (whatever their `requires-*`).

        This is `guide check`'s whole report but for documents and skill members (`lint`)."""
        return self.value("report", self._report)

    # Memos for callers above.

    def value(self, key: Hashable, make: Callable[[], T]) -> T:
        """A value of this snapshot made once (a listing, a count): made now if it was not yet."""
        found = self._values.get(key, MISSING)
        if found is MISSING:
            made = make()
            with self._lock:
                found = self._values.setdefault(key, made)
        return found

    def peek(self, key: Hashable) -> Any:
        """The value under `key` if it was made, else `MISSING` (never makes anything)."""
        return self._values.get(key, MISSING)

    def remember(self, memo: str, key: Hashable, value: T) -> T:
        """Keep `value` in a memo bounded by count and characters (`MEMO_SIZES`, `MEMO_CHARACTERS`) for this snapshot, and return it."""
        return self._memos[memo].keep(key, value)

    def recall(self, memo: str, key: Hashable) -> Any:
        """A value kept with `remember`, else `MISSING`."""
        return self._memos[memo].get(key, MISSING)

    # Inside.

    def _kept(self, rel: str) -> Front | FrontmatterError | None:
        """The frontmatter from the store's kept parses, if it holds one for the file's stamp (no file is read)."""
        source = self.snapshot.sources[rel]
        kept = self.parses.front(rel, source.stamp) if self.parses is not None and source.stamp is not None else None
        return self._files.note_front(rel, *kept) if kept is not None else None

    def _parse(self, rel: str) -> Parsed | FrontmatterError:
        """Read a template file and parse it (reusing a parse of the same text); its frontmatter is noted if it was not yet."""
        source, work = self.snapshot.sources[rel], self._files.get(rel)
        read_ns = time.time_ns()
        text, refusal = self._read(rel)
        text_digest = digest(text) if text is not None else ""
        if text is None:
            parsed: Parsed | FrontmatterError = FrontmatterError(refusal, None)
        elif work.front is not None and work.digest == text_digest:
            parsed = _with_text(work.front, text)
        else:
            kept = self.parses.checked(rel, source.stamp, text_digest) if self.parses is not None and source.stamp is not None else None
            parsed = _with_text(kept, text) if kept is not None else _split(text)
            if kept is None and self.parses is not None and source.stamp is not None:
                self.parses.remember(rel, source.stamp, text, parsed, read_ns=read_ns, text_digest=text_digest)
        if work.front is None:
            self._files.note_front(rel, parsed.front if isinstance(parsed, Parsed) else parsed, text_digest or None)
        return parsed

    def _read(self, rel: str) -> tuple[str | None, str]:
        """A template file's text, or None and why it cannot be read."""
        source = self.snapshot.sources[rel]
        if source.stamp is None:
            return None, "file is gone"
        try:
            return files.read_text(self.root, rel, self.limit, encoding="utf-8-sig", identity=source.identity), ""
        except files.Refused as error:
            return None, f"file {error}"

    def _document_applies(self, rel: str) -> bool:
        return rel not in self.snapshot.sources or self.allows(rel)  # a file without frontmatter always applies

    def _summary(self, rel: str) -> Summary:
        """What listing a file needs of its frontmatter: from its frontmatter if read, else the store's, else read now."""
        work = self._files.get(rel)
        if work.summary is not None:
            return work.summary
        kept = self._stored_summary(rel) if work.front is None else None
        return self._files.note_summary(rel, kept if kept is not None else summary(self.front(rel)))

    def _stored_summary(self, rel: str) -> Summary | None:
        source = self.snapshot.sources[rel]
        return self.parses.summary(rel, source.stamp) if self.parses is not None and source.stamp is not None else None

    def _mentions(self, rel: str, word: str) -> bool:
        """False only when the file surely has no frontmatter key starting with `word` (`word` is one of `MARKED`)."""
        work = self._files.get(rel)
        if work.summary is None and work.front is None and (stored := self._stored_summary(rel)) is not None:
            self._files.note_summary(rel, stored)
            work = self._files.get(rel)
        if work.summary is not None or work.front is not None:
            return any(mark.startswith(word) for mark in self._summary(rel).marks)
        found = work.mentions.get(word)
        if found is None:
            text, _ = self._read(rel)
            found = self._files.note_mention(rel, word, text is None or word in text)  # unreadable: the parse says why
        return found

    def _built(self, kind: Kind, name: str) -> tuple[Entrypoint, Findings]:
        return self.value(("entrypoint", kind, name), lambda: entrypoints.build(kind, name, self.snapshot.table(kind)[name], self))

    def _longest(self, segments: tuple[str, ...], depth: int, name_of: Callable[[str], str | None]) -> tuple[Entrypoint, tuple[str, ...]] | None:
        for length in range(min(len(segments), depth), 0, -1):
            name = name_of("/".join(segments[:length]))
            command = self.command(name) if name is not None else None
            if command is not None:
                return command, segments[length:]
        return None

    def _aliases(self) -> dict[str, str]:
        found: dict[str, str] = {}
        commands = self.snapshot.layout.commands
        for name, rel in sorted(commands.items()):
            if not self._mentions(rel, "aliases") or not self.applies("command", name):
                continue
            front = self.front(rel)
            for alias in listed(front.meta, "aliases") if isinstance(front, Front) else ():
                if alias not in commands:
                    found.setdefault(alias, name)
        return found

    def _description(self, kind: Kind, name: str) -> str:
        return self._summary(self.snapshot.table(kind)[name]).description

    def _report(self) -> tuple[list[Problem], list[Problem]]:
        layout = self.snapshot.layout
        problems, notes = [], list(layout.notes)
        # Each entrypoint whole, one after the other: its text and template facts are used while still in their memos.
        for kind in ("command", "skill"):
            for name, rel in self.snapshot.table(kind).items():
                found, noted = self.checks(self.entrypoint(kind, name))
                problems += [*found, *self._too_large(rel)]
                notes += noted
        problems += [*self.snapshot.config_problems, *layout.problems, *entrypoints.alias_problems(layout.commands, self)]
        for rel in layout.partials.values():
            partial_problems, partial_notes = entrypoints.partial_report(rel, self)
            problems += partial_problems
            notes += partial_notes
        return _ordered(problems), _ordered(notes)

    def _too_large(self, rel: str) -> list[Problem]:
        """The error of an entrypoint whose partials alone expand past the output cap (reported by `guide check` only)."""
        parsed, facts = self.parsed(rel), self.template(rel)
        if not isinstance(parsed, Parsed) or not facts.inclusions:
            return []
        found = expansion_problem(rel, parsed.body_line, facts, self.expansion(rel), self.indentation(rel))
        return [found] if found is not None else []


def same_listings(before: Built, after: Built) -> bool:
    """Whether two builds list the same things: the same files in every role, configuration and frontmatter.

    A body edit keeps the listings; a file added, removed or renamed, a changed
    guide.yaml, or changed frontmatter (which may rename, describe or hide an
    entrypoint, or change its fields) does not. An earlier build that listed a
    file from its kept summary alone (no frontmatter read, so no template or
    prompt of it built) showed only that summary, so the summaries are compared;
    a changed file the earlier build knew nothing of counts as changed. Reads
    files: never on the event loop.
    """
    if before is after:
        return True
    if not same_files(before.snapshot, after.snapshot):
        return False
    old_sources = before.snapshot.sources
    for rel, source in after.snapshot.sources.items():
        if old_sources.get(rel) != source:
            old = before._files.get(rel)
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


def _depth(names: Iterable[str]) -> int:
    return max((name.count("/") + 1 for name in names), default=0)


def _ordered(problems: list[Problem]) -> list[Problem]:
    return sorted(set(problems), key=lambda p: (p.path, p.line or 0, p.message))
