"""`guide.yaml`: flags and workflow (C10), lists, URL hosts, collections, instructions, what Guide knows of clients, and the active workflow phase."""

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guide.clients import Row, read_rows
from guide.docroot import files
from guide.docroot.entries import Entry, read_collections, read_instructions
from guide.docroot.frontmatter import FrontmatterError, composed, line_in, load_mapping, locate
from guide.errors import Problem
from guide.forms.sources import MAX_CHOICE_LENGTH, MAX_OFFERED
from guide.forms.url_step import host_entry_problem
from guide.forms.values import same_value
from guide.spelling import near_miss
from guide.text import clip

CONFIG_NAME = "guide.yaml"
DEFAULT_STATE_FILE = ".guide.yaml"
KEYS = ("flags", "workflow", "lists", "url-hosts", "collections", "instructions", "clients")
MAX_LIST = 100
"""The most values a `lists:` entry holds: the most a form or a completion offers."""
_LIST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
REQUIRES = "requires-"
"""The prefix of a frontmatter key that makes a file depend on a flag (`requires-<flag>`, C4)."""


@dataclass(frozen=True)
class Config:
    """Docroot settings: flag values, the enabled workflow phases in order, and the named lists of choices."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    phases: tuple[str, ...] = ()
    state_file: str = DEFAULT_STATE_FILE
    lists: Mapping[str, tuple[tuple[str, str | None], ...]] = field(default_factory=dict)
    """Each list under `lists:` as (value, title) pairs in order; a plain value has no title (`source: list:<name>`, C5)."""
    url_hosts: tuple[str, ...] = ()
    """The hosts a URL step's link may go to (`url-hosts:`): names, IP addresses or `*.domain`."""
    collections: Mapping[str, tuple[Entry, ...]] = field(default_factory=dict)
    """Each named collection of documents (`collections:`), its entries in order: read at `guide://@name` in one read."""
    instructions: tuple[Entry, ...] = ()
    """The documents every session is given as it connects (`instructions:`), in order."""
    clients: tuple[Row, ...] = ()
    """What the operator knows of clients beyond their declarations (`clients:`), before Guide's own rows (`guide.clients`)."""

    def allows(self, meta: Mapping[str, Any]) -> bool:
        """Whether every `requires-<flag>` of a file's frontmatter holds (C4)."""
        for flag, options in requirements(meta).items():
            if flag not in self.flags or not any(same_value(self.flags[flag], option) for option in options):
                return False
        return True


def requirements(meta: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Each flag a file's `requires-<flag>` keys name, with the values that satisfy it."""
    return {
        key[len(REQUIRES):]: wanted if isinstance(wanted, list) else [wanted]
        for key, wanted in meta.items()
        if isinstance(key, str) and key.startswith(REQUIRES)
    }


def read_config(docroot: Path, max_file_size: int = files.MAX_FILE_SIZE) -> tuple[Config, list[Problem]]:
    """Read `guide.yaml` if present; a broken or unreadable file yields problems and the default config."""
    if not os.path.lexists(docroot / CONFIG_NAME):
        return Config(), []
    try:
        text = files.read_text(docroot, CONFIG_NAME, max_file_size)
    except files.Gone:
        return Config(), []
    except files.Refused as error:
        return Config(), [Problem(path=CONFIG_NAME, message=f"file {error}; the default settings apply (no flags, no workflow)")]
    try:
        data = load_mapping(text)
    except FrontmatterError as error:
        message = f"{str(error).replace('frontmatter', CONFIG_NAME)}; the default settings apply (no flags, no workflow)"
        return Config(), [Problem(path=CONFIG_NAME, line=error.line, message=message)]
    problems = []

    def problem(keys: tuple[Any, ...], message: str) -> None:
        problems.append(Problem(path=CONFIG_NAME, line=locate(text, keys, 1), message=message))

    _unknown_keys(data, problem)
    flags = data.get("flags") or {}
    if not isinstance(flags, Mapping):
        problem(("flags",), "`flags` must be a mapping of flag name to value")
        flags = {}
    tree = composed(text) if "collections" in data or "instructions" in data else None  # the lines of their entries, from one parse

    def lines(keys: tuple[Any, ...]) -> int:
        return line_in(tree, keys, 1)

    config = Config(dict(flags), *_workflow(data.get("workflow"), problem), read_lists(data.get("lists"), problem),
                    _url_hosts(data.get("url-hosts"), problem), read_collections(data.get("collections"), problem, lines),
                    read_instructions(data.get("instructions"), problem, lines), read_rows(data.get("clients"), problem))
    return config, problems


def _unknown_keys(data: Mapping[Any, Any], problem: Callable[[tuple[Any, ...], str], None]) -> None:
    for key in sorted(map(str, set(data) - set(KEYS))):
        resembled = near_miss(key, KEYS)
        advice = f"did you mean `{resembled}`? (accepted: {', '.join(KEYS)})" if resembled else f"accepted: {', '.join(KEYS)}"
        problem((key,), f"unknown key `{key}`; {advice}")


def _workflow(workflow: Any, problem: Callable[[tuple[Any, ...], str], None]) -> tuple[tuple[str, ...], str]:
    """The enabled phases in order and the state file of `workflow:` (each broken part told, and its default used)."""
    workflow = workflow or {}
    if not isinstance(workflow, Mapping):
        problem(("workflow",), "`workflow` must be a mapping with `phases` and `state-file`")
        workflow = {}
    phases = workflow.get("phases") or []
    if not isinstance(phases, list) or not all(isinstance(p, str) and p for p in phases) or len(set(phases)) != len(phases):
        problem(("workflow", "phases"), "`workflow.phases` must be a list of distinct phase names")
        phases = []
    state_file = workflow.get("state-file", DEFAULT_STATE_FILE)
    if not isinstance(state_file, str) or not state_file:
        problem(("workflow", "state-file"), "`workflow.state-file` must be a file path")
        state_file = DEFAULT_STATE_FILE
    return tuple(phases), state_file


def read_lists(data: Any, problem: Callable[[tuple[str, ...], str], None]) -> dict[str, tuple[tuple[str, str | None], ...]]:
    """The `lists:` mapping of guide.yaml, each list's problems told to `problem` (a broken list is left out)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        problem(("lists",), "`lists` must be a mapping of list name to a list of values (or of {value, title})")
        return {}
    lists = {}
    for name, entries in data.items():
        options = [_option(entry) for entry in entries] if isinstance(entries, list) else []
        values = [option[0] for option in options if option is not None]
        if not isinstance(name, str) or not _LIST_NAME.fullmatch(name):
            problem(("lists",), f"list name {name!r} must be letters, digits, '-' or '_'")
        elif not options or None in options:
            problem(("lists", name), f"list {name!r} must be a non-empty list of values, or of {{value, title}} with text in both")
        elif len(set(values)) != len(values):
            problem(("lists", name), f"list {name!r} lists a value twice")
        elif len(values) > MAX_LIST:
            problem(("lists", name), f"list {name!r} has {len(values)} values; a list holds at most {MAX_LIST} (the most a form offers)")
        elif bound := _list_bound(options):
            problem(("lists", name), f"list {name!r} {bound}")
        else:
            lists[name] = tuple(options)
    return lists


def _list_bound(options: list[tuple[str, str | None]]) -> str | None:
    """What passes a source's bounds in a list (`MAX_CHOICE_LENGTH` a value or title, `MAX_OFFERED` in all), or None."""
    texts = [text for option in options for text in option if text is not None]
    longest = max(texts, key=len)
    if len(longest) > MAX_CHOICE_LENGTH:
        return f"has a value or title of {len(longest):,} characters ({clip(longest)!r}); a choice takes at most {MAX_CHOICE_LENGTH:,}"
    total = sum(map(len, texts))
    if total > MAX_OFFERED:
        return f"takes {total:,} characters in all; a list offers at most {MAX_OFFERED:,}"
    return None


def _option(entry: Any) -> tuple[str, str | None] | None:
    """One entry of a list as (value, title), or None if it is neither non-empty text nor {value, title} text."""
    if isinstance(entry, str) and entry.strip():
        return entry, None
    if isinstance(entry, Mapping) and set(entry) <= {"value", "title"} and isinstance(entry.get("value"), str) and entry["value"].strip():
        title = entry.get("title")
        return (entry["value"], title) if title is None or isinstance(title, str) and title.strip() else None
    return None


def _url_hosts(entries: Any, problem: Any) -> tuple[str, ...]:
    """The `url-hosts` list; an entry that is not a host is a problem and left out (its links are then refused)."""
    if entries is None:
        return ()
    if not isinstance(entries, list):
        problem(("url-hosts",), "`url-hosts` must be a list of host names (`[accounts.example.com, \"*.example.org\"]`)")
        return ()
    hosts = []
    for entry in entries:
        found = host_entry_problem(entry)
        if found:
            problem(("url-hosts",), f"`url-hosts`: {found}")
        else:
            hosts.append(entry.strip("[]").lower())  # as a link's host reads (an IPv6 address in lower case)
    return tuple(hosts)


def state_path(config: Config, project: Path) -> Path | None:
    """The project's workflow state file, if workflow is configured."""
    return project / config.state_file if config.phases else None


def read_phase(path: Path) -> str | None:
    """The phase a state file names (`phase: <name>`), if the file exists, is a small regular text file and names one."""
    try:
        data = load_mapping(files.decode(files.read_bytes(path, files.MAX_FILE_SIZE)))
    except (files.Refused, FrontmatterError):
        return None
    phase = data.get("phase")
    return phase if isinstance(phase, str) else None
