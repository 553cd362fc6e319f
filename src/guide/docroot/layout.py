"""Where each kind of file lives in a docroot (C2)."""

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

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


def is_skill_name(name: str) -> bool:
    """The Agent Skills rule: 1-64 of a-z0-9-, no leading, trailing or doubled '-'."""
    return len(name) <= 64 and _SKILL_NAME.fullmatch(name) is not None


def scan(docroot: Path) -> Layout:
    """Walk a docroot and sort its files into commands, skills, members, partials and documents."""
    layout = Layout()
    for folder, subfolders, files in os.walk(docroot):
        relative = Path(folder).relative_to(docroot)
        parts = relative.parts
        subfolders[:] = sorted(d for d in subfolders if _keeps_folder(parts, d))
        for name in sorted(files):
            if not name.startswith("."):
                _place(layout, parts, name)
    return layout


def document_type(rel: str) -> str:
    """The MIME type a document file is served as."""
    return DOCUMENT_TYPES.get(os.path.splitext(rel)[1], MIME)


def _keeps_folder(parts: tuple[str, ...], name: str) -> bool:
    if name.startswith("."):
        return False
    if not name.startswith("_"):
        return True
    return (not parts and name in ("_commands", "_skills", "_partials")) or (name == "_partials" and parts[:1] == ("_commands",))


def _place(layout: Layout, parts: tuple[str, ...], name: str) -> None:
    rel = "/".join(parts + (name,))
    stem, suffix = os.path.splitext(name)
    is_template = suffix in TEMPLATE_SUFFIXES
    if "_partials" in parts:
        if is_template:
            inner = parts[parts.index("_partials") + 1:]
            _add_unique(layout.partials, "/".join(inner + (stem,)), rel, layout, "partial")
    elif parts[:1] == ("_commands",):
        if is_template and not name.startswith("_"):
            _add_unique(layout.commands, "/".join(parts[1:] + (stem,)), rel, layout, "command")
    elif parts[:1] == ("_skills",):
        _place_skill(layout, parts, name, rel)
    elif suffix in DOCUMENT_TYPES and not name.startswith("_") and rel != CONFIG_NAME:
        _add_unique(layout.documents, "/".join(parts + (stem,)), rel, layout, "document")


def _place_skill(layout: Layout, parts: tuple[str, ...], name: str, rel: str) -> None:
    if len(parts) < 2:
        return
    skill = parts[1]
    if not is_skill_name(skill):
        if len(parts) == 2 and name == SKILL_FILE:
            message = f"skill folder name {skill!r} must be 1-64 of a-z, 0-9 and '-', without leading, trailing or doubled '-'"
            layout.problems.append(Problem(path=rel, message=message))
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
