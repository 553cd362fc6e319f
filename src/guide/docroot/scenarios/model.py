"""What a scenario says: the read, the person's answers, the clients it runs in, and what is expected.

A scenario file is a YAML mapping of scenario names to scenarios, directly in
the docroot's `_tests` folder (a folder Guide never serves: its name starts
with `_`, C2). These records are plain values: reading them is `parse`,
checking them against the docroot is `checks`, running them is `guide test`.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from guide.errors import Problem
from guide.forms.failure import Reason

TESTS = "_tests"
"""The docroot folder of scenario files (directly inside it), their snapshots and their projects (in its subfolders)."""
SUFFIXES = (".yaml", ".yml")
ACTIONS = ("decline", "cancel")
"""What a person may do with a form besides answering it."""
CLIENTS = ("forms", "apps", "agent", "keywords", "url")
"""The clients a scenario may run in (docs/testing.md, "Clients")."""
DEFAULT_CLIENTS = ("forms", "apps", "agent", "keywords")
"""The clients of a scenario that names none: every channel, URL mode aside (a client opens links only when it says so)."""
ASKING = ("forms", "apps", "url")
"""The clients that show the person forms: only they can decline or cancel one."""
REASONS: tuple[str, ...] = get_args(Reason)
"""The reasons of a failure, as its data names them (docs/errors.md)."""
SCENARIO_KEYS = ("read", "prompt", "answers", "clients", "project", "expect")
EXPECT_KEYS = ("text", "snapshot", "asks", "fails")
FAILS_KEYS = ("reason", "fields")

Reply = Mapping[str, Any] | str
"""A person's answer to one form: field values (accept), "decline" or "cancel"."""
Lines = Callable[[tuple[Any, ...]], int]
"""The file line of a key path inside a scenario file (the deepest key found)."""


@dataclass(frozen=True)
class Failing:
    """An expected failure: its reason, and the keywords of the fields concerned (None: not compared)."""

    reason: str
    fields: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Expect:
    """What a scenario expects: the rendered text (inline or a snapshot), the forms asked, or a failure."""

    text: str | None = None
    snapshot: str | None = None
    """The snapshot file, relative to the docroot (inside `_tests`)."""
    asks: tuple[str, ...] | None = None
    """The forms asked, each once, in declaration order."""
    fails: Failing | None = None


@dataclass(frozen=True)
class Scenario:
    """One scenario of a file: where it is, what it reads, what the person answers, in which clients, and what is expected."""

    path: str
    """The scenario file, relative to the docroot."""
    name: str
    line: int
    read: str | None = None
    """The address read (a `guide://` or `skill://` address); None when the scenario reads a prompt line."""
    prompt: str | None = None
    """The `guide` prompt's command line (`_review --mode branch`); None when the scenario reads an address."""
    answers: Mapping[str, Reply] = field(default_factory=dict)
    clients: tuple[str, ...] = DEFAULT_CLIENTS
    named_clients: bool = False
    """Whether the scenario names its clients (else it runs in every default client that can carry its answers)."""
    project: str | None = None
    """The project folder, relative to the docroot (inside `_tests`)."""
    expect: Expect = field(default_factory=Expect)
    lines: Lines = field(default=lambda keys: 1, compare=False, repr=False)

    @property
    def where(self) -> str:
        """The scenario as a report names it: file and line, then its name."""
        return f"{self.path}:{self.line} {self.name}"

    def line_of(self, *keys: Any) -> int:
        """The file line of a key inside this scenario (the scenario's own line when it is not found)."""
        return self.lines((self.name, *keys))

    def refuses(self) -> bool:
        """Whether the person declines or cancels a form: only a client that shows forms can carry that."""
        return any(reply in ACTIONS for reply in self.answers.values())


@dataclass(frozen=True)
class ScenarioFile:
    """A scenario file as read: its scenarios, the mistakes in their shape, and which scenarios those leave unable to run."""

    path: str
    scenarios: tuple[Scenario, ...] = ()
    """Every scenario that is a mapping under a text name, broken or not (a broken one is still checked against the docroot)."""
    problems: tuple[Problem, ...] = ()
    """Mistakes of shape, each pinned to its line: the file's own, then each scenario's."""
    broken: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict)
    """The mistakes of shape of each scenario that has some (by name; it cannot run): what `problems` holds beyond the file's own."""
