"""Where each kind of file lives in a docroot (C2), and which files are left out and why."""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from guide.docroot import files
from guide.docroot.config import CONFIG_NAME
from guide.errors import Problem
from guide.protocol import MIME

TEMPLATE_SUFFIXES = (".md", ".mustache")
DOCUMENT_TYPES = {".md": MIME, ".mustache": MIME, ".txt": "text/plain", ".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml"}
"""The files served as documents, by suffix, with the MIME type each is served as (C2)."""
SKILL_FILE = "SKILL.md"
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
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    """Each served file's (mtime_ns, size) as the scan found it."""


def is_skill_name(name: str) -> bool:
    """The Agent Skills rule: 1-64 of a-z0-9-, no leading, trailing or doubled '-'."""
    return len(name) <= 64 and _SKILL_NAME.fullmatch(name) is not None


def scan(docroot: Path, max_file_size: int = files.MAX_FILE_SIZE) -> Layout:
    """Walk a real docroot folder and sort its files into commands, skills, members, partials and documents.

    Folder symlinks are not followed. A file Guide would refuse to read (see
    `guide.docroot.files`) is left out: a note says why, or a problem if it is too large.
    """
    layout = Layout()
    for folder, subfolders, names in os.walk(docroot):
        parts = Path(folder).relative_to(docroot).parts
        subfolders[:] = sorted(d for d in subfolders if _keeps_folder(parts, d) and _walks(layout, docroot, parts, d))
        for name in sorted(names):
            if not name.startswith(".") and _readable_name(layout, parts, name):
                _place(layout, parts, name, lambda rel: _admits(layout, docroot, rel, max_file_size))
    return layout


def document_type(rel: str) -> str:
    """The MIME type a document file is served as."""
    return DOCUMENT_TYPES.get(os.path.splitext(rel)[1], MIME)


def _walks(layout: Layout, docroot: Path, parts: tuple[str, ...], name: str) -> bool:
    if not _readable_name(layout, parts, name):
        return False
    rel = "/".join(parts + (name,))
    if os.path.islink(docroot / rel):
        layout.notes.append(Problem(path=rel, message="folder symlinks are not followed; its files are not served"))
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


def _admits(layout: Layout, docroot: Path, rel: str, limit: int) -> bool:
    try:
        status = files.check(docroot, rel, limit)
    except files.TooLarge as error:
        layout.problems.append(Problem(path=rel, message=f"file {error}; it is not served"))
        return False
    except files.Refused as error:
        layout.notes.append(Problem(path=rel, message=f"file {error}; it is not served"))
        return False
    layout.stamps[rel] = (status.st_mtime_ns, status.st_size)
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
