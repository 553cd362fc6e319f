"""`guide.yaml`: flags and workflow settings (C10), and the active workflow phase."""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guide.docroot import files
from guide.docroot.frontmatter import FrontmatterError, load_mapping, locate
from guide.errors import Problem
from guide.forms.url_step import host_entry_problem
from guide.forms.values import same_value
from guide.spelling import near_miss

CONFIG_NAME = "guide.yaml"
DEFAULT_STATE_FILE = ".guide.yaml"
KEYS = ("flags", "workflow", "url-hosts")
REQUIRES = "requires-"
"""The prefix of a frontmatter key that makes a file depend on a flag (`requires-<flag>`, C4)."""


@dataclass(frozen=True)
class Config:
    """Docroot settings: flag values and the enabled workflow phases, in order."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    phases: tuple[str, ...] = ()
    state_file: str = DEFAULT_STATE_FILE
    url_hosts: tuple[str, ...] = ()
    """The hosts a URL step's link may go to (`url-hosts:`): names, IP addresses or `*.domain`."""

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

    def problem(keys: tuple[str, ...], message: str) -> None:
        problems.append(Problem(path=CONFIG_NAME, line=locate(text, keys, 1), message=message))

    unknown = set(data) - set(KEYS)
    for key in sorted(map(str, unknown)):
        resembled = near_miss(key, KEYS)
        advice = f"did you mean `{resembled}`? (accepted: {', '.join(KEYS)})" if resembled else f"accepted: {', '.join(KEYS)}"
        problem((key,), f"unknown key `{key}`; {advice}")
    flags = data.get("flags") or {}
    if not isinstance(flags, Mapping):
        problem(("flags",), "`flags` must be a mapping of flag name to value")
        flags = {}
    workflow = data.get("workflow") or {}
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
    return Config(dict(flags), tuple(phases), state_file, _url_hosts(data.get("url-hosts"), problem)), problems


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
