"""What has been built from one docroot snapshot, and the questions asked of it: commands, skills, documents, listings.

- **Lifetime.** A `Built` lives as long as its snapshot serves. When files change,
  `Docroot` makes a new one, handed the per-file work of every unchanged file.
- **Per file**: what is made of each template file is `guide.docroot.filework`'s
  (`Files`), whose questions a build answers as its own.
- **Per snapshot**: values made once (`value`: entrypoints, checks, listings) and
  bounded memos (`recall`, `remember`), each declared by the code that uses it
  (`guide.docroot.memo.Once`, `Kept`).
- **Threads.** Worker threads build at once. A value is computed outside any lock
  and published under one: a build's values under its `_lock`, a memo's entries
  under the memo's, the per-file work as whole records replaced under the lock of
  `Works`, shared with the builds made from it, and the partial graph's tables
  under the graph's. Two threads may compute the same value (the same result),
  but none waits for another's parse, and nothing is gone through while another
  thread may add to it.
- **The fast path.** `made` and `recall` answer only from what is built (`UNBUILT`
  when it is not), on the event loop (`guide.server.work.built_or_build`).
"""

import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from guide.address import EntrypointKind
from guide.docroot import entrypoints, icons
from guide.docroot.config import Config
from guide.docroot.display import KEYS as DISPLAY_KEYS
from guide.docroot.display import NOTHING, Display, read
from guide.docroot.entrypoints import Entrypoint, Findings
from guide.docroot.filework import Files, same_fronts
from guide.docroot.frontmatter import Front, Parsed, listed
from guide.docroot.icons import Icon
from guide.docroot.layout import Layout
from guide.docroot.memo import UNBUILT, Memos, Once, Unbuilt
from guide.docroot.partials import Expansion, Indentation, PartialGraph
from guide.docroot.snapshot import Snapshot, same_files
from guide.docroot.store.parses import StoredParses
from guide.errors import Problem

T = TypeVar("T")
ENTRYPOINTS: Once[tuple[Entrypoint, Findings]] = Once("each entrypoint built, by kind and name")
CHECKS: Once[tuple[tuple[Problem, ...], tuple[Problem, ...]]] = Once("each entrypoint's problems and notes, by kind and name")
INDENTATION: Once[Indentation] = Once("how far each template's partials may be indented, by file")
NAMES, EVERY = Once[list[str]]("the names that apply, by kind"), Once[list[Entrypoint]]("the entrypoints that apply, by kind")
DESCRIPTIONS: Once[list[tuple[str, str]]] = Once("the name and description of each entrypoint that applies, by kind")
ALIASES, DOCUMENTS = Once[dict[str, str]]("each alias's command"), Once[dict[str, str]]("the file of each document that applies")
ALIAS_DEPTH, NAME_DEPTH = Once[int]("the most segments of an alias"), Once[int]("the most segments of a command name")
ICONS: Once[dict[str, Icon | str]] = Once("each icon named by frontmatter, or why it cannot be one, by the value written")


class Built:
    """Everything built so far from one snapshot, and the questions asked of it (commands, skills, listings, reports)."""

    def __init__(self, snapshot: Snapshot, *, limit: int, parses: StoredParses | None = None, previous: "Built | None" = None):
        """`limit`: the largest file read, in bytes; `parses`: the store's kept parses; `previous`: the build this one replaces."""
        self.snapshot = snapshot
        self._lock = threading.Lock()
        self._values: dict[Hashable, Any] = {}
        self._memos = Memos()
        self.remember, self.recall = self._memos.remember, self._memos.recall  # the memos the build's users declare (`Kept`)
        files = Files(snapshot, limit=limit, parses=parses, memos=self._memos, previous=previous.files if previous is not None else None)
        self.files: Files = files
        # The per-file questions are answered by the per-file work itself (one call, not one through the build).
        self.front, self.parsed, self.template, self.declared, self.allows = files.front, files.parsed, files.template, files.declared, files.allows
        self._graph = PartialGraph(snapshot.layout.partials, lambda name: self.template(snapshot.layout.partials[name]))

    # What the snapshot says, for callers that have only the build.

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

    # Partials.

    def partial_loop(self, names: Iterable[str]) -> list[str] | None:
        """A loop of partials that rendering these names would enter, if any."""
        return self._graph.loop_through(names)

    def expansion(self, rel: str) -> Expansion:
        """How many characters the partials of a template file expand to, counted without rendering."""
        return self._graph.expansion(self.template(rel))

    def indentation(self, rel: str) -> Indentation:
        """How far the engine may indent each partial a template file reaches, and what that indenting costs."""
        return self.value(INDENTATION, lambda: self._graph.indentation(self.template(rel)), rel)

    def partials_reached(self, names: Iterable[str]) -> list[str]:
        """Every partial these names include, directly or through other partials."""
        return self._graph.reachable(names)

    def partial_body(self, name: str) -> str | None:
        """The body `{{>name}}` renders: the partial's, when it exists and its `requires-*` hold (C9)."""
        rel = self.partials.get(name)
        if rel is None or not self.allows(rel):
            return None
        parsed = self.parsed(rel)
        return parsed.body if isinstance(parsed, Parsed) else None

    # Entrypoints.

    def entrypoint(self, kind: EntrypointKind, name: str) -> Entrypoint:
        """The built entrypoint of that kind and name (which must exist in the layout)."""
        return self._built(kind, name)[0]

    def checks(self, entrypoint: Entrypoint) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
        """An entrypoint's problems (what makes it unusable) and notes, found when first asked for (they read its body)."""
        kind, name = entrypoint.kind, entrypoint.name
        return self.value(CHECKS, lambda: entrypoints.check(entrypoint, self._built(kind, name)[1], self), (kind, name))

    def problems(self, entrypoint: Entrypoint) -> tuple[Problem, ...]:
        """What makes an entrypoint unusable (authoring errors)."""
        return self.checks(entrypoint)[0]

    def applies(self, kind: EntrypointKind, name: str) -> bool:
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
        return by_name or self._longest(segments, self.value(ALIAS_DEPTH, lambda: _depth(self.aliases())), self.aliases().get)

    def name_depth(self) -> int:
        """The most segments any command name has: no longer run of an address can name one."""
        return self.value(NAME_DEPTH, lambda: _depth(self.snapshot.layout.commands))

    def aliases(self) -> dict[str, str]:
        """Each alias of an applying command, mapped to the command's name."""
        return self.value(ALIASES, self._aliases)

    def names(self, kind: EntrypointKind) -> list[str]:
        """The name of every command or skill that applies, sorted."""
        return self.value(NAMES, lambda: [name for name in sorted(self.snapshot.table(kind)) if self.applies(kind, name)], kind)

    def every(self, kind: EntrypointKind) -> list[Entrypoint]:
        """Every command or skill that applies, sorted by name (each one built)."""
        return self.value(EVERY, lambda: [self.entrypoint(kind, name) for name in self.names(kind)], kind)

    def descriptions(self, kind: EntrypointKind) -> list[tuple[str, str]]:
        """Name and description of every command or skill that applies, from frontmatter alone (no form is declared)."""
        return self.value(DESCRIPTIONS, lambda: [(name, self._description(kind, name)) for name in self.names(kind)], kind)

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
        return self.value(DOCUMENTS, lambda: {path: rel for path, rel in sorted(layout.documents.items()) if self._document_applies(rel)})

    def display(self, rel: str) -> Display:
        """What a file shows in lists: `title`, `icon`, `audience` (mostly nothing)."""
        marks = self.files.summary(rel).marks if rel in self.snapshot.sources else ()
        if not marks or not any(mark.startswith(DISPLAY_KEYS) for mark in marks):
            return NOTHING  # from its listing summary: no frontmatter is read for a file without them
        front = self.front(rel)
        return read(front.meta) if isinstance(front, Front) else NOTHING

    def icon(self, value: str) -> Icon | str:
        """The icon an `icon:` value names (read once: `ICONS` holds each value read so far), or why not."""
        read = self.value(ICONS, dict)
        return read[value] if value in read else read.setdefault(value, icons.load(self.snapshot.root, value))

    def document_description(self, rel: str) -> str:
        """A document's `description` from its frontmatter: empty without one (and for `.txt`, `.json` or YAML, C2)."""
        return self.files.summary(rel).description if rel in self.snapshot.sources else ""

    # Values and memos for callers above.

    def value(self, once: Once[T], make: Callable[[], T], key: Hashable = None) -> T:
        """The value `once` declares (under `key`, when it has one per key) for this snapshot: made now if it was not yet."""
        found = self._values.get((once, key), UNBUILT)
        if found is UNBUILT:
            made = make()
            with self._lock:
                found = self._values.setdefault((once, key), made)
        return found

    def made(self, once: Once[T], key: Hashable = None) -> T | Unbuilt:
        """The value `once` declares (under `key`) if it was made, else `UNBUILT` (never makes anything)."""
        return self._values.get((once, key), UNBUILT)

    # Inside.

    def _document_applies(self, rel: str) -> bool:
        return rel not in self.snapshot.sources or self.allows(rel)  # a file without frontmatter always applies

    def _built(self, kind: EntrypointKind, name: str) -> tuple[Entrypoint, Findings]:
        return self.value(ENTRYPOINTS, lambda: entrypoints.build(kind, name, self.snapshot.table(kind)[name], self), (kind, name))

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
            if not self.files.mentions(rel, "aliases") or not self.applies("command", name):
                continue
            front = self.front(rel)
            for alias in listed(front.meta, "aliases") if isinstance(front, Front) else ():
                if alias not in commands:
                    found.setdefault(alias, name)
        return found

    def _description(self, kind: EntrypointKind, name: str) -> str:
        return self.files.summary(self.snapshot.table(kind)[name]).description


def same_listings(before: Built, after: Built) -> bool:
    """Whether two builds list the same things: the same files in every role, configuration and frontmatter.

    A body edit keeps the listings; a file added, removed or renamed, a changed
    guide.yaml, or changed frontmatter (which may rename, describe or hide an
    entrypoint, or change its fields) does not (`filework.same_fronts`). Reads
    files: never on the event loop.
    """
    return before is after or (same_files(before.snapshot, after.snapshot) and same_fronts(before.files, after.files))


def _depth(names: Iterable[str]) -> int:
    return max((name.count("/") + 1 for name in names), default=0)
