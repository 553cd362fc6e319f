"""One version of the docroot as found on disk: configuration, layout, and each template file by path and stamp (C2).

A snapshot is a plain record: it reads nothing and keeps nothing it did not
find when it was made. What is built from it (texts, parses, entrypoints,
listings, renders) lives in `guide.docroot.built`, for exactly as long as the
snapshot serves.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from guide.address import EntrypointKind
from guide.docroot.config import Config
from guide.docroot.files import Stamp
from guide.docroot.layout import Layout
from guide.errors import Problem


@dataclass(frozen=True, slots=True)
class Source:
    """A template file (command, skill or partial) as found: its path relative to the docroot and its stamp."""

    path: str
    stamp: Stamp | None
    """None when the file was gone by the time it was looked at again."""
    identity: tuple[int, int] | None = None
    """(device, inode) when found by walking the real docroot (not through a symlink): it may be read without resolving its path."""


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The docroot at one moment: its configuration, layout and template files."""

    root: Path
    config: Config
    layout: Layout
    sources: Mapping[str, Source]
    config_problems: tuple[Problem, ...] = ()

    def table(self, kind: EntrypointKind) -> dict[str, str]:
        """The file of each command or skill, by name."""
        return self.layout.commands if kind == "command" else self.layout.skills


LISTED_ROLES = ("commands", "skills", "partials", "documents", "members")
"""The roles of the layout that listings show."""


def same_files(before: Snapshot, after: Snapshot) -> bool:
    """Whether two snapshots hold the same files in every role, under the same configuration (contents aside)."""
    return before.config == after.config and all(getattr(before.layout, role) == getattr(after.layout, role) for role in LISTED_ROLES)
