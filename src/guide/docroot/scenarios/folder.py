"""The `_tests` folder of a docroot: its scenario files, read safely, and what tells that anything in it changed.

Scenario files are the `.yaml` and `.yml` files directly in `_tests`; its
subfolders hold snapshots and project folders. They are read as every docroot
file is (`guide.docroot.files`): regular files inside the real docroot, at most
the size cap, UTF-8. A folder link is never followed.
"""

import os
from pathlib import Path

from guide.docroot import files
from guide.docroot.scenarios.model import SUFFIXES, TESTS, ScenarioFile
from guide.docroot.scenarios.parse import parse
from guide.errors import Problem

MAX_ENTRIES = 10_000
"""The most entries of `_tests` (files and folders, at every depth) stamped for the check report's fingerprint."""


def scenario_files(root: Path) -> list[str]:
    """The scenario files of the docroot at `root` (real path), relative to it, sorted."""
    try:
        with os.scandir(root / TESTS) as entries:
            names = [entry.name for entry in entries if entry.name.endswith(SUFFIXES) and not entry.name.startswith(".")
                     and not entry.is_dir(follow_symlinks=False)]
    except OSError:  # no `_tests` folder (or not one Guide can list): no scenarios
        return []
    return sorted(f"{TESTS}/{name}" for name in names)


def read(root: Path, rel: str, limit: int = files.MAX_FILE_SIZE) -> ScenarioFile:
    """The scenario file `rel`, read and parsed; a file Guide may not read is one problem naming why."""
    try:
        text = files.read_text(root, rel, limit)
    except files.Refused as error:
        return ScenarioFile(rel, problems=(Problem(path=files.shown(rel), line=1, message=f"the scenario file {error}"),))
    return parse(rel, text)


def read_all(root: Path, limit: int = files.MAX_FILE_SIZE) -> list[ScenarioFile]:
    """Every scenario file of the docroot, read and parsed, in file order."""
    return [read(root, rel, limit) for rel in scenario_files(root)]


def stamps(root: Path) -> dict[str, files.Stamp]:
    """Each entry under `_tests` with what changes when it does, for the check report's fingerprint; a folder's name ends with `/`."""
    found: dict[str, files.Stamp] = {}
    folders = [TESTS]
    while folders and len(found) < MAX_ENTRIES:
        folder = folders.pop()
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    rel = f"{folder}/{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        found[rel + "/"] = files.stamp(entry.stat(follow_symlinks=False))
                        folders.append(rel)
                    else:
                        found[rel] = files.stamp(entry.stat())
        except OSError:  # gone, unreadable, or a link to nothing: what it held is missing from the stamps, which is a change
            continue
    return found
