"""`guide init DIR`: write a starter docroot with one file of each kind.

Nothing is written through a symbolic link or outside DIR (DIR itself may be a link
to a folder). A link where a starter file or one of its folders goes is refused
before anything is written, with `--force` too. The writes then hold to that even if
the folder changes meanwhile: each folder on the way is opened without following a
link, and each file is written under a temporary name and renamed over its place,
so what a link or a hard link there pointed to is never opened.
"""

import argparse
import os
import secrets
import shlex
import sys
from contextlib import suppress
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
    rel = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for rel in files:
            if write_inside(folder, rel, (SCAFFOLD / rel).read_bytes()):
                replaced.append(rel)
    except OSError as error:
        print(f"guide init: cannot write {folder / rel if rel else folder}: {error.strerror or error}", file=sys.stderr)
        return 2
    _report(folder, files, replaced)
    return 0


def starter_files() -> list[str]:
    """The relative paths of the starter docroot's files, sorted."""
    return sorted(path.relative_to(SCAFFOLD).as_posix() for path in SCAFFOLD.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


def write_inside(folder: Path, rel: str, data: bytes) -> bool:
    """Write `data` to `folder/rel` without following a link below `folder`; True if a file was there before."""
    *parents, name = rel.split("/")
    here = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parents:
            with suppress(FileExistsError):
                os.mkdir(part, dir_fd=here)
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=here)
            os.close(here)
            here = inner
        existed = _present(name, here)
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=here)
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
            os.replace(temporary, name, src_dir_fd=here, dst_dir_fd=here)  # replaces the entry; never opens what it pointed to
        except BaseException:
            with suppress(OSError):
                os.unlink(temporary, dir_fd=here)
            raise
        return existed
    finally:
        os.close(here)


def _present(name: str, folder_descriptor: int) -> bool:
    try:
        os.stat(name, dir_fd=folder_descriptor, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _refusal(folder: Path, files: list[str], force: bool) -> str | None:
    """Why the starter files cannot go into `folder`, or None; checked before anything is written."""
    if folder.is_symlink() and not folder.exists():
        return f"{folder} is a symbolic link to nothing"
    if folder.exists() and not folder.is_dir():
        return f"{folder} exists and is not a folder"
    if folder.is_dir() and any(folder.iterdir()) and not force:
        return f"{folder} is not empty; choose a new or empty folder, or pass --force to add the starter files (replacing files of the same name)"
    for rel in files:
        for place in [*reversed(Path(rel).parents[:-1]), Path(rel)]:
            if (folder / place).is_symlink():
                link = folder / place
                return f"{link} is a symbolic link, which guide init never writes through (it may lead outside {folder}); remove it or choose another folder"
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
    print(f"  guide test {where}")
    print(f"  guide try 'guide://_change' --docroot {where}")
    print(f"  guide serve --docroot {where}")
