"""One consistent view of the docroot: which file each name refers to (C2, C4).

A snapshot never changes once made: a new one replaces it when files change.
Files are parsed, and entrypoints built, the first time something asks; what was
built is kept in the snapshot's `EntrypointTable` and lives exactly as long as it.
"""

import gc
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from guide import address
from guide.docroot import entrypoints
from guide.docroot.config import REQUIRES, Config
from guide.docroot.entrypoints import Entrypoint, Kind, Surroundings
from guide.docroot.frontmatter import FrontmatterError
from guide.docroot.layout import Layout
from guide.docroot.partials import PartialGraph
from guide.docroot.ready import slow_work
from guide.docroot.sources import Source
from guide.errors import Problem


@dataclass(frozen=True)
class Summary:
    """What listings and help show of an entrypoint, without declaring its forms."""

    kind: Kind
    name: str
    uri: str
    description: str


class PartialBodies(Mapping[str, str]):
    """The bodies partials contribute to rendering, read on first use: a render parses only the partials it includes."""

    def __init__(self, partials: Mapping[str, Source], config: Config):
        self._partials = partials
        self._config = config
        self._bodies: dict[str, str | None] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._bodies:
            slow_work()
            parsed = self._partials[name].parsed
            applies = not isinstance(parsed, FrontmatterError) and self._config.allows(parsed.meta)
            self._bodies[name] = parsed.body if applies else None
        body = self._bodies[name]
        if body is None:
            raise KeyError(name)
        return body

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._partials if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class EntrypointTable:
    """Entrypoints and whole listings of one snapshot, each built once on first use."""

    def __init__(self) -> None:
        self._built: dict[tuple[Kind, str], Entrypoint] = {}
        self._listings: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[Kind, str], build: Callable[[], Entrypoint]) -> Entrypoint:
        """The entrypoint under `key`, built now if it was not yet."""
        found = self._built.get(key)
        if found is None:
            slow_work()
            built = build()
            with self._lock:
                found = self._built.setdefault(key, built)
        return found

    def listing(self, name: str, make: Callable[[], Any]) -> Any:
        """A result over many entrypoints (a listing, every problem), made once."""
        if name not in self._listings:
            slow_work()
            with _bulk_build():
                made = make()
            with self._lock:
                self._listings.setdefault(name, made)
        return self._listings[name]


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The docroot at one moment: its configuration, layout and template files."""

    root: Path
    config: Config
    layout: Layout
    sources: Mapping[str, Source]
    config_problems: tuple[Problem, ...] = ()
    built: EntrypointTable = field(default_factory=EntrypointTable, repr=False)

    def entrypoint(self, kind: Kind, name: str) -> Entrypoint:
        """The built entrypoint of that kind and name (which must exist in the layout)."""
        source = self.sources[self._table(kind)[name]]
        return self.built.get((kind, name), lambda: entrypoints.build(kind, name, source, self.surroundings))

    def command(self, name: str) -> Entrypoint | None:
        """The command answering to a name or alias, if it applies to this configuration."""
        name = name if name in self.layout.commands else self.aliases.get(name, name)
        return self.entrypoint("command", name) if self._applies("command", name) else None

    def skill(self, name: str) -> Entrypoint | None:
        """The skill of that name, if it applies to this configuration."""
        return self.entrypoint("skill", name) if self._applies("skill", name) else None

    def find_command(self, segments: tuple[str, ...]) -> tuple[Entrypoint, tuple[str, ...]] | None:
        """The command named by the longest leading run of `segments`, and the segments left as its args.

        A command's own name is looked for first; aliases only when no name
        matches (so finding a command by name never reads every file for aliases).
        """
        return self._longest(segments, self.name_depth, self._by_name) or self._longest(segments, self.alias_depth, self.aliases.get)

    def _longest(self, segments: tuple[str, ...], depth: int, name_of: Callable[[str], str | None]) -> tuple[Entrypoint, tuple[str, ...]] | None:
        for length in range(min(len(segments), depth), 0, -1):
            name = name_of("/".join(segments[:length]))
            command = self.command(name) if name is not None else None
            if command is not None:
                return command, segments[length:]
        return None

    def commands(self) -> list[Entrypoint]:
        """Every command that applies, sorted by name."""
        return self.built.listing("commands", lambda: self._every("command"))

    def skills(self) -> list[Entrypoint]:
        """Every skill that applies, sorted by name."""
        return self.built.listing("skills", lambda: self._every("skill"))

    def names(self, kind: Kind) -> list[str]:
        """The name of every command or skill that applies, sorted (no file is parsed but those with `requires-`)."""
        return self.built.listing(f"{kind} names", lambda: [name for name in sorted(self._table(kind)) if self._applies(kind, name)])

    def summaries(self, kind: Kind) -> list[Summary]:
        """Name, address and description of every command or skill that applies, from frontmatter alone (no form is declared)."""
        return self.built.listing(f"{kind} summaries", lambda: [self._summary(kind, name) for name in self.names(kind)])

    @cached_property
    def name_depth(self) -> int:
        """The most segments any command name has: no longer run of an address can name one."""
        slow_work()
        return max((name.count("/") + 1 for name in self.layout.commands), default=0)

    @cached_property
    def alias_depth(self) -> int:
        """The most segments any alias has."""
        slow_work()
        return max((name.count("/") + 1 for name in self.aliases), default=0)

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Each alias of an applying command, mapped to the command's name."""
        slow_work()
        found: dict[str, str] = {}
        for name, rel in sorted(self.layout.commands.items()):
            source = self.sources[rel]
            if not source.may_mention("aliases") or not self._applies("command", name):
                continue
            aliases = source.parsed.meta.get("aliases") if not isinstance(source.parsed, FrontmatterError) else None
            for alias in aliases if isinstance(aliases, list) else ():
                if isinstance(alias, str) and alias not in self.layout.commands:
                    found.setdefault(alias, name)
        return found

    @cached_property
    def partials(self) -> dict[str, Source]:
        """Every partial by name, as read."""
        slow_work()
        return {name: self.sources[rel] for name, rel in self.layout.partials.items()}

    @cached_property
    def surroundings(self) -> Surroundings:
        """What building any one entrypoint needs to know of the rest of this snapshot."""
        slow_work()
        return Surroundings(partials=self.partials, config=self.config, config_ok=not self.config_problems, graph=PartialGraph(self.partials))

    @cached_property
    def partial_bodies(self) -> Mapping[str, str]:
        """The body of each partial whose `requires-*` hold, for `{{>name}}` (C9); a partial is parsed when first included."""
        return PartialBodies(self.partials, self.config)

    def member(self, skill: str, member: str) -> Path | None:
        """The file of a skill member, if the skill applies and has it."""
        rel = self.layout.members.get((skill, member))
        return self.root / rel if rel and self.skill(skill) else None

    def document(self, path: str) -> Path | None:
        """The file of a document addressed by its path without extension."""
        rel = self.layout.documents.get(path)
        return self.root / rel if rel else None

    def problems(self) -> list[Problem]:
        """Every authoring problem of the docroot: config, layout, partials and entrypoints."""
        return self.built.listing("report", self._report)[0]

    def notes(self) -> list[Problem]:
        """What `guide check` reports without failing, for the templates: stranger keys, forms never asked."""
        return self.built.listing("report", self._report)[1]

    def _report(self) -> tuple[list[Problem], list[Problem]]:
        commands = {name: self.sources[rel] for name, rel in self.layout.commands.items()}
        problems = list(self.config_problems) + list(self.layout.problems) + entrypoints.alias_problems(commands)
        notes = list(self.layout.notes)
        for source in self.partials.values():
            partial_problems, partial_notes = entrypoints.partial_report(source, self.surroundings)
            problems += partial_problems
            notes += partial_notes
        for kind in ("command", "skill"):
            for name in self._table(kind):
                built = self.entrypoint(kind, name)
                problems += built.problems
                notes += built.notes
        return _ordered(problems), _ordered(notes)

    def _by_name(self, name: str) -> str | None:
        return name if name in self.layout.commands else None

    def _summary(self, kind: Kind, name: str) -> Summary:
        parsed = self.sources[self._table(kind)[name]].parsed
        description = "" if isinstance(parsed, FrontmatterError) else str(parsed.meta.get("description", ""))
        uri = address.command_address(name) if kind == "command" else address.skill_address(name)
        return Summary(kind, name, uri, description)

    def _every(self, kind: Kind) -> list[Entrypoint]:
        return [self.entrypoint(kind, name) for name in sorted(self._table(kind)) if self._applies(kind, name)]

    def _table(self, kind: Kind) -> dict[str, str]:
        return self.layout.commands if kind == "command" else self.layout.skills

    def _applies(self, kind: Kind, name: str) -> bool:
        rel = self._table(kind).get(name)
        if rel is None:
            return False
        source = self.sources[rel]
        if not source.may_mention(REQUIRES) or isinstance(source.parsed, FrontmatterError):
            return True
        return self.config.allows(source.parsed.meta)


LISTED_ROLES = ("commands", "skills", "partials", "documents", "members")


def same_listings(before: Snapshot, after: Snapshot) -> bool:
    """Whether two snapshots list the same things: the same files in every role, configuration and frontmatter.

    A body edit keeps the listings; a file added, removed or renamed, a changed
    guide.yaml, or changed frontmatter (which may rename, describe or hide an
    entrypoint, or change its fields) does not.
    """
    if before is after:
        return True
    if before.config != after.config or any(getattr(before.layout, role) != getattr(after.layout, role) for role in LISTED_ROLES):
        return False
    for rel, source in after.sources.items():
        old = before.sources.get(rel)
        if old is not source and (old is None or old.frontmatter_text != source.frontmatter_text):
            return False
    return True


def _ordered(problems: list[Problem]) -> list[Problem]:
    return sorted(set(problems), key=lambda p: (p.path, p.line or 0, p.message))


@contextmanager
def _bulk_build() -> Iterator[None]:
    """Build many entrypoints without the cyclic garbage collector re-scanning them, then and later.

    A bulk build makes many long-lived objects and no garbage cycles, yet each new
    object counts towards the next collection: at 10k entrypoints collections took
    a quarter of the time. So the collector is paused meanwhile, and what exists
    then is frozen (left out of later collections) until `Docroot` replaces the
    snapshot. This runs once per snapshot and listing, never per request.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
