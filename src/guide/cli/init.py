"""`guide init DIR`: write a starter docroot with one file of each kind."""

import argparse
import shlex
import shutil
import sys
from pathlib import Path

from guide.scaffold import DOCROOT as SCAFFOLD


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide init`."""
    parser = commands.add_parser("init", help="write a starter docroot: a command, a skill, a partial, a document and guide.yaml")
    parser.add_argument("folder", type=Path, help="the folder to create (it may exist if it is empty)")
    parser.add_argument("--force", action="store_true", help="write into a folder that is not empty, replacing files of the same name")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Copy the starter files into the folder and say what to run next; exit 2 if the folder is not usable."""
    folder: Path = options.folder
    files = starter_files()
    problem = _refusal(folder, files, options.force)
    if problem:
        print(f"guide init: {problem}", file=sys.stderr)
        return 2
    replaced = []
    try:
        for rel in files:
            target = folder / rel
            if target.exists():
                replaced.append(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SCAFFOLD / rel, target)
    except OSError as error:
        print(f"guide init: cannot write {error.filename or folder}: {error.strerror or error}", file=sys.stderr)
        return 2
    _report(folder, files, replaced)
    return 0


def starter_files() -> list[str]:
    """The relative paths of the starter docroot's files, sorted."""
    return sorted(path.relative_to(SCAFFOLD).as_posix() for path in SCAFFOLD.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


def _refusal(folder: Path, files: list[str], force: bool) -> str | None:
    """Why the starter files cannot go into `folder`, or None; checked before anything is written."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} exists and is not a folder"
    if folder.is_dir() and any(folder.iterdir()) and not force:
        return f"{folder} is not empty; choose a new or empty folder, or pass --force to add the starter files (replacing files of the same name)"
    for rel in files:
        for parent in reversed(Path(rel).parents[:-1]):
            if (folder / parent).exists() and not (folder / parent).is_dir():
                return f"{folder / parent} exists and is not a folder"
        if (folder / rel).is_dir():
            return f"{folder / rel} is a folder, where the starter file {rel} would go"
    return None


def _report(folder: Path, files: list[str], replaced: list[str]) -> None:
    """Print the files written and the commands to try next."""
    print(f"Wrote a starter docroot to {folder}:")
    for rel in files:
        print(f"  {rel}{'  (replaced)' if rel in replaced else ''}")
    where = shlex.quote(str(folder))
    print("Next:")
    print(f"  guide check {where}")
    print(f"  guide try 'guide://_change' --docroot {where}")
    print(f"  guide serve --docroot {where}")
