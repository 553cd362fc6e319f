"""Where each kind of file lives in a docroot (C2), and which files are left out and why."""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from guide.address import SKILL_FILE, prompt_name
from guide.docroot import files
from guide.docroot.config import CONFIG_NAME
from guide.errors import Problem
from guide.protocol import MIME, ROUTE_PROMPT

TEMPLATE_SUFFIXES = (".md", ".mustache")
DOCUMENT_TYPES = {".md": MIME, ".mustache": MIME, ".txt": "text/plain", ".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml"}
"""The files served as documents, by suffix, with the MIME type each is served as (C2)."""
_SKILL_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@dataclass
class Layout:
    """Relative file paths of a docroot by role, keyed by the name each is addressed with."""

    commands: dict[str, str] = field(default_factory=dict)
    skills: dict[str, str] = field(default_factory=dict)
    members: dict[tuple[str, str], str] = field(default_factory=dict)
    partials: dict[str, str] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    """Files left out on purpose (symlinks out of the docroot, special files, names that are not UTF-8): not errors."""
    stamps: dict[str, files.Stamp] = field(default_factory=dict, compare=False, repr=False)
    """Each served file's stamp (inode, size, modification and change time) as the scan found it."""
    identities: dict[str, files.Identity] = field(default_factory=dict, compare=False, repr=False)
    """Each served file that is not a symlink: its (device, inode), so it can be read again without resolving its path."""
    shared_prompts: set[str] = field(default_factory=set)
    """Prompt names that two or more commands would get (`a.b` for `a.b` and `a/b`): no command is offered as one (C3)."""

    def with_frontmatter(self) -> list[str]:
        """Every file whose YAML frontmatter Guide reads: commands, skills, partials and `.md`/`.mustache` documents (C2)."""
        documents = [rel for rel in self.documents.values() if has_frontmatter(rel)]
        return [*self.commands.values(), *self.skills.values(), *self.partials.values(), *documents]


def has_frontmatter(rel: str) -> bool:
    """Whether a file of this name may begin with YAML frontmatter (`.txt`, `.json` and YAML documents have none, C2)."""
    return rel.endswith(TEMPLATE_SUFFIXES)


def is_skill_name(name: str) -> bool:
    """The Agent Skills rule: 1-64 of a-z0-9-, no leading, trailing or doubled '-'."""
    return len(name) <= 64 and _SKILL_NAME.fullmatch(name) is not None


def scan(docroot: Path, max_file_size: int = files.MAX_FILE_SIZE) -> Layout:
    """Walk a real docroot folder and sort its files into commands, skills, members, partials and documents.

    Folder symlinks are not followed. A file Guide would refuse to read (see
    `guide.docroot.files`) is left out: a note says why, or a problem if it is too large.
    """
    layout = Layout()
    _scan_folder(layout, docroot, os.fspath(docroot), (), max_file_size)
    _claim_prompts(layout)
    return layout


def _claim_prompts(layout: Layout) -> None:
    """Each command's own prompt (C3): names that collide are a problem naming both files; a command named `guide` a note.

    While two commands claim one prompt name neither is offered under it, so that
    no prompt means one command today and the other after a rename elsewhere;
    both are still read by address and through the `guide` prompt's routes.
    """
    claims: dict[str, list[str]] = {}
    for name in sorted(layout.commands):
        claims.setdefault(prompt_name(name), []).append(name)
    for prompt, names in claims.items():
        if prompt == ROUTE_PROMPT:
            message = f"command {ROUTE_PROMPT!r} gets no prompt of its own: prompt `{ROUTE_PROMPT}` runs commands by route; use `_{ROUTE_PROMPT}` there"
            layout.notes.append(Problem(path=layout.commands[names[0]], message=message))
        if len(names) < 2:
            continue
        layout.shared_prompts.add(prompt)
        first = layout.commands[names[0]]
        for other in names[1:]:
            message = (
                f"commands {names[0]!r} ({first}) and {other!r} both become prompt {prompt!r}; neither is offered as a prompt"
                " until one is renamed (both still read by address)"
            )
            layout.problems.append(Problem(path=layout.commands[other], message=message))


def _scan_folder(layout: Layout, docroot: Path, folder: str, parts: tuple[str, ...], limit: int) -> None:
    # os.scandir rather than os.walk over Path objects: at 10k files the scan is on the start path,
    # and the entries' own lstat and type bits save a path object and a system call per file.
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        layout.notes.append(Problem(path=files.shown("/".join(parts)) or ".", message=unreadable_folder(error)))
        return
    subfolders, names = [], []
    for entry in entries:
        (subfolders if _is_folder(entry) else names).append(entry)
    kept = [entry for entry in subfolders if _keeps_folder(parts, entry.name) and _walks(layout, parts, entry)]
    for entry in names:
        if not entry.name.startswith(".") and _readable_name(layout, parts, entry.name):
            _place(layout, parts, entry.name, lambda rel, entry=entry: _admits(layout, docroot, rel, entry, limit))
    for entry in kept:
        _scan_folder(layout, docroot, entry.path, parts + (entry.name,), limit)


def unreadable_folder(error: OSError) -> str:
    """What the scan and the watch say of a folder they cannot list."""
    return f"the folder cannot be read ({os.strerror(error.errno or 0).lower()}); its files are not served and its edits not seen"


def folders(docroot: Path) -> tuple[list[str], list[str]]:
    """The folders the scan walks, relative to the docroot ("" for itself), and the ones among them it cannot read.

    The same rule as the scan's: no folder symlink is followed, and folders the
    scan leaves out (hidden ones, `_`-folders other than Guide's own, names that
    are not UTF-8) are not entered either.
    """
    walked, unreadable, pending = [], [], [()]
    while pending:
        parts = pending.pop()
        try:
            with os.scandir(os.path.join(docroot, *parts)) as listing:
                entries = list(listing)
        except OSError:
            unreadable.append("/".join(parts))
            continue
        walked.append("/".join(parts))
        pending.extend(parts + (entry.name,) for entry in entries if _real_folder(entry) and _keeps_folder(parts, entry.name) and _utf8(entry.name))
    return sorted(walked), sorted(unreadable)


def _real_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def document_type(rel: str) -> str:
    """The MIME type a document file is served as."""
    return DOCUMENT_TYPES.get(os.path.splitext(rel)[1], MIME)


def _walks(layout: Layout, parts: tuple[str, ...], entry: os.DirEntry) -> bool:
    if not _readable_name(layout, parts, entry.name):
        return False
    if entry.is_symlink():
        layout.notes.append(Problem(path="/".join(parts + (entry.name,)), message="folder symlinks are not followed; its files are not served"))
        return False
    return True


def _readable_name(layout: Layout, parts: tuple[str, ...], name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        rel = files.shown("/".join(parts + (name,)))
        layout.notes.append(Problem(path=rel, message="the name is not UTF-8 text, so no address can name it; it is not served"))
        return False
    return True


def _admits(layout: Layout, docroot: Path, rel: str, entry: os.DirEntry, limit: int) -> bool:
    try:
        status = files.check(docroot, rel, limit, entry)
    except files.TooLarge as error:
        layout.problems.append(Problem(path=rel, message=f"file {error}; it is not served"))
        return False
    except files.Refused as error:
        layout.notes.append(Problem(path=rel, message=f"file {error}; it is not served"))
        return False
    layout.stamps[rel] = files.stamp(status)
    if not entry.is_symlink():
        layout.identities[rel] = files.identity(status)
    return True


def _keeps_folder(parts: tuple[str, ...], name: str) -> bool:
    if name.startswith("."):
        return False
    if not name.startswith("_"):
        return True
    return (not parts and name in ("_commands", "_skills", "_partials")) or (name == "_partials" and parts[:1] == ("_commands",))


def _place(layout: Layout, parts: tuple[str, ...], name: str, admits: Callable[[str], bool]) -> None:
    rel = "/".join(parts + (name,))
    stem, suffix = os.path.splitext(name)
    is_template = suffix in TEMPLATE_SUFFIXES
    if "_partials" in parts:
        if is_template and admits(rel):
            inner = parts[parts.index("_partials") + 1:]
            _add_unique(layout.partials, "/".join(inner + (stem,)), rel, layout, "partial")
    elif parts[:1] == ("_commands",):
        if is_template and not name.startswith("_") and admits(rel):
            _add_unique(layout.commands, "/".join(parts[1:] + (stem,)), rel, layout, "command")
    elif parts[:1] == ("_skills",):
        _place_skill(layout, parts, name, rel, admits)
    elif suffix in DOCUMENT_TYPES and not name.startswith("_") and rel != CONFIG_NAME and admits(rel):
        _add_unique(layout.documents, "/".join(parts + (stem,)), rel, layout, "document")


def _place_skill(layout: Layout, parts: tuple[str, ...], name: str, rel: str, admits: Callable[[str], bool]) -> None:
    if len(parts) < 2:
        return
    skill = parts[1]
    if not is_skill_name(skill):
        if len(parts) == 2 and name == SKILL_FILE:
            message = f"skill folder name {skill!r} must be 1-64 of a-z, 0-9 and '-', without leading, trailing or doubled '-'"
            layout.problems.append(Problem(path=rel, message=message))
        return
    if not admits(rel):
        return
    if len(parts) == 2 and name == SKILL_FILE:
        layout.skills[skill] = rel
    else:
        layout.members[(skill, "/".join(parts[2:] + (name,)))] = rel


def _add_unique(table: dict[str, str], name: str, rel: str, layout: Layout, kind: str) -> None:
    if name in table:
        layout.problems.append(Problem(path=rel, message=f"{kind} {name!r} is also defined by {table[name]}"))
        return
    table[name] = rel
