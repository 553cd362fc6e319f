"""Write an export into a project, never over a file Guide did not write: plan every change first, then make them all or none.

A file is written when it is new, or when the one there is the one the
manifest records (same digest); left alone when it already holds the text; and
refused when it is something else: a file Guide did not write, one edited
since, a folder or a symlink where a file goes, or a symlink within the
exported folders (never followed). A file recorded before and no longer
exported is removed only while it is unchanged; an edited one is left in place
and named. One refusal stops the whole export: nothing is written, and each
refusal is one line.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from guide.cli.export.manifest import digest


@dataclass
class Plan:
    """What an export will change in the project: files to write, files left as they are, files to remove, and refusals."""

    root: Path
    writes: dict[str, str] = field(default_factory=dict)
    same: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Files exported before, no longer exported, and edited since: left in place."""
    refused: list[str] = field(default_factory=list)


def plan(root: Path, texts: dict[str, str], recorded: dict[str, str], folders: tuple[str, ...]) -> Plan:
    """What writing `texts` (by path relative to `root`) changes, given the digests `recorded` before; `folders` are the exported ones."""
    found = Plan(root)
    for rel, text in sorted(texts.items()):
        refusal = _linked(root, rel, folders)
        target = root / rel
        if refusal is None and (target.is_symlink() or (target.exists() and not target.is_file())):
            refusal = f"{target} is not a regular file: not replaced"
        if refusal is not None:
            found.refused.append(refusal)
            continue
        now = digest(target.read_bytes()) if target.exists() else None
        if now == digest(text.encode("utf-8")):
            found.same.append(rel)
        elif now is None or recorded.get(rel) == now:
            found.writes[rel] = text
        elif rel in recorded:
            found.refused.append(f"{target} was changed since guide export-skills wrote it: not overwritten (move it away to export it again)")
        else:
            found.refused.append(f"{target} was not written by guide export-skills: not overwritten (move it away, or export elsewhere)")
    for rel, was in sorted(recorded.items()):
        target = root / rel
        if rel in texts or _linked(root, rel, folders) is not None or not target.is_file() or target.is_symlink():
            continue
        (found.removes if digest(target.read_bytes()) == was else found.kept).append(rel)
    return found


def apply(found: Plan, folders: tuple[str, ...]) -> None:
    """Make the planned changes: each file written whole (a temporary file renamed over it), stale files removed with emptied folders."""
    for rel, text in found.writes.items():
        target = found.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.guide-export.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    for rel in found.removes:
        target = found.root / rel
        target.unlink()
        _remove_emptied(target.parent, [found.root / folder for folder in folders])


def _linked(root: Path, rel: str, folders: tuple[str, ...]) -> str | None:
    """Why `rel` may not be written: a symlink (or a file) where a folder of it goes, below its exported folder; None if it may."""
    folder = next((f for f in folders if rel.startswith(f + "/")), None)
    if folder is None:
        return f"{root / rel} is outside the exported folders"
    current = root / folder
    for part in Path(rel[len(folder) + 1:]).parts[:-1]:
        current = current / part
        if current.is_symlink():
            return f"{current} is a symlink: guide export-skills does not write through it"
        if current.exists() and not current.is_dir():
            return f"{current} is a file where a folder goes: not replaced"
    return None


def _remove_emptied(folder: Path, stops: list[Path]) -> None:
    """Remove `folder` and its parents while they are empty, up to (not including) an exported folder."""
    while folder not in stops and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
