"""What Guide knows of a client beyond what it declares, by the name and version in its `clientInfo` (issue 36).

A declaration is what a client says it can take; some clients do not keep it.
A row of the client table names clients (a glob over `clientInfo.name`, in any
case, and optionally a range of versions) and what they do with what they
declare, one trait at a time:

- `forms: hidden`: it declares form elicitation, but no person sees its forms
  (Guide sends none: the App form if it declares MCP Apps, else the agent's
  questions); `shown`: its declaration stands.
- `declines: automatic`: a decline from it within `CEILING` seconds of the form
  is no person's (the read goes on as for a client without forms); `person`:
  every decline from it is a person's (it shows every form); unset, the bound
  every client has applies (the `unread_decline` setting).
- `apps: true|false`: whether it renders Guide's App page, whatever it declares.
- `urls: true|false`: whether it opens URL-mode steps (never without form elicitation).
- `titles: true|false`: whether its forms show each choice's title; `false`:
  each form's message also lists the choices with their titles.

The table is the operator's rows (`clients:` in guide.yaml) before Guide's own
(`SHIPPED`, each with its evidence in docs/clients.md): for each trait, the
first row that matches and sets it wins, so a new client release is a line of
configuration. Pure: the server applies what a client's rows say to its
declaration (`guide.server.clients`).
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from guide.spelling import near_miss

CEILING = 4.0
"""Seconds after which a decline is always a person's, whatever the bound or the client's row says."""
UNREAD_DECLINE = 1.5
"""Seconds: a decline sooner than this after its form went out is no person's (the `unread_decline` setting's default).

An automatic decline comes back within a round trip (milliseconds over stdio, tens of them over a network); a person
has to see the form, read its first line and reach the decline button, which takes well over a second. The bound leaves
a slow network a second of its own and stays under what a person needs."""
FORMS = ("shown", "hidden")
DECLINES = ("person", "automatic")
SWITCHES = ("apps", "urls", "titles")
KEYS = ("name", "versions", "forms", "declines", *SWITCHES)
TRY_CLIENT = "guide-try"
"""The name `guide try` gives itself in its `clientInfo`."""
TEST_CLIENT = "guide-test"
"""The name `guide test`'s clients give themselves in their `clientInfo`."""
_CLAUSE = re.compile(r"\s*(>=|<=|==|!=|>|<)?\s*(\d+(?:\.\d+)*)\s*")
_LEADING = re.compile(r"\d+(?:\.\d+)*")


@dataclass(frozen=True)
class Traits:
    """What the table says of one client, trait by trait; None: its declaration stands."""

    forms: str | None = None
    declines: str | None = None
    apps: bool | None = None
    urls: bool | None = None
    titles: bool | None = None

    def over(self, other: "Traits") -> "Traits":
        """These traits, each one unset here taken from `other`."""
        return replace(self, **{item.name: getattr(other, item.name) for item in fields(self) if getattr(self, item.name) is None})


NOTHING = Traits()


@dataclass(frozen=True)
class Row:
    """Clients by name (a glob, any case) and version range, and what the table says of them."""

    name: str
    versions: str = ""
    """Comma-separated clauses (`>=2.1.76,<2.2`); empty: every version."""
    traits: Traits = NOTHING

    def matches(self, name: str, version: str) -> bool:
        """Whether a client giving this name and version is one of this row's."""
        return fnmatchcase(name.casefold(), self.name.casefold()) and in_range(version, self.versions)


def in_range(version: str, versions: str) -> bool:
    """Whether `version` (its leading dotted numbers: `2.1.144` of `2.1.144-beta`) is in `versions`; no range holds every version."""
    if not versions.strip():
        return True
    found = _LEADING.match(version.strip())
    if found is None:
        return False
    given = _numbers(found.group())
    for clause in versions.split(","):
        operator, bound = _CLAUSE.fullmatch(clause).groups()  # type: ignore[union-attr]  # checked when the row was read
        width = max(len(given), len(bound.split(".")))
        have, limit = _padded(given, width), _padded(_numbers(bound), width)
        if not {"<": have < limit, "<=": have <= limit, ">": have > limit, ">=": have >= limit, "!=": have != limit}.get(operator, have == limit):
            return False
    return True


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _padded(numbers: tuple[int, ...], width: int) -> tuple[int, ...]:
    return numbers + (0,) * (width - len(numbers))


class Table:
    """The rows, in the order they are asked; what they say of a client is worked out once per name and version."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = tuple(rows)
        self.of = lru_cache(maxsize=256)(self._of)  # a client's name and version are few per server: asked once each

    def _of(self, name: str, version: str) -> tuple[Traits, str]:
        """What the table says of a client, and the name of the first row naming it (empty: none does)."""
        traits, first = NOTHING, ""
        for row in self.rows:
            if row.matches(name, version):
                traits, first = traits.over(row.traits), first or row.name
        return traits, first


def read_rows(data: Any, problem: Callable[[tuple[Any, ...], str], None]) -> tuple[Row, ...]:
    """The rows of `clients:` in guide.yaml, each broken row told to `problem` and left out."""
    if data is None:
        return ()
    if not isinstance(data, list):
        problem(("clients",), "`clients` must be a list of clients, each `{name: <clientInfo name or glob>, ...}` with what Guide should know of it")
        return ()
    rows = []
    for index, entry in enumerate(data):
        found = _row(entry)
        if isinstance(found, Row):
            rows.append(found)
        else:
            problem(("clients", index), f"`clients` entry {index + 1}: {found}")
    return tuple(rows)


def _row(entry: Any) -> Row | str:
    """One row of `clients:`, or what is wrong with it."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
        return "each client is a mapping with a `name` (the clientInfo name, or a glob such as `local-agent-*`)"
    unknown = sorted(map(str, set(entry) - set(KEYS)))
    if unknown:
        resembled = near_miss(unknown[0], KEYS)
        return f"unknown key `{unknown[0]}`; " + (f"did you mean `{resembled}`?" if resembled else f"accepted: {', '.join(KEYS)}")
    versions = entry.get("versions", "")
    versions = str(versions) if isinstance(versions, int | float) and not isinstance(versions, bool) else versions
    if not isinstance(versions, str) or not all(_CLAUSE.fullmatch(clause) for clause in versions.split(",") if versions.strip()):
        return "`versions` is a range such as `>=2.1.76,<2.2` (clauses of >=, >, <=, <, == or != and a version, comma-separated)"
    values: dict[str, Any] = {}
    for key, accepted in (("forms", FORMS), ("declines", DECLINES)):
        if key in entry and entry[key] not in accepted:
            return f"`{key}` is {' or '.join(accepted)}"
        values[key] = entry.get(key)
    for key in SWITCHES:
        if key in entry and not isinstance(entry[key], bool):
            return f"`{key}` is true or false"
        values[key] = entry.get(key)
    return Row(entry["name"].strip(), versions.strip(), Traits(**values))


SHIPPED = (
    # Claude Code (and the clients built on it that say `claude-code`) declares form elicitation, but in some sessions
    # the SDK declines every form without showing it (docs/clients.md, "What Guide knows of clients").
    Row("claude-code", traits=Traits(declines="automatic")),
    # Codex declares form elicitation and declines forms itself, or shows the message without its fields.
    Row("codex-mcp-client", traits=Traits(forms="hidden")),
    # `guide try` is Guide's own terminal client: a person types every answer, however soon.
    Row(TRY_CLIENT, traits=Traits(declines="person")),
    # `guide test` plays the person a scenario describes: its declines are that person's, at once.
    Row(TEST_CLIENT, traits=Traits(declines="person")),
)
"""Guide's own rows, after the operator's: each is a client whose behaviour public reports show differs from its declaration."""
