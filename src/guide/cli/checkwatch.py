"""`guide check --watch`: check the docroot again after every change, for an author with an editor open beside it.

Text reports follow each other on standard output, each after a line on
standard error naming what changed. With `--format json` each report is one
JSON object on one line (JSON Lines), so an editor can read them as they come.
Ctrl-C stops it with exit status 130.
"""

import argparse
import io
import json
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

from guide.docroot.watcher import FolderWatch
from guide.text import for_terminal

INTERRUPTED = 130
"""The exit status of a program stopped by Ctrl-C (128 + SIGINT)."""
IDLE_MS = 300
"""How long the watcher waits for a change before it looks again (and Ctrl-C is seen)."""
SHOWN_CHANGES = 3
"""At most this many changed paths are named before "and N more"."""


def watch(options: argparse.Namespace, check_once: Callable[[argparse.Namespace], int]) -> int:
    """Run `check_once` now and after each batch of changes under the docroot, until Ctrl-C."""
    once = argparse.Namespace(**{**vars(options), "watch": False})
    root = Path(options.docroot)
    if not root.is_dir():
        return check_once(once)  # says it is not a folder
    # The watch is set up before the first check: a change made while it runs is
    # then reported, never lost. It is made again whenever a folder comes or goes.
    watcher = FolderWatch(root.resolve())
    try:
        _report(once, check_once)
        print(f"guide check: watching {for_terminal(str(root))}; Ctrl-C stops", file=sys.stderr, flush=True)
        while True:
            changes = watcher.changes(200, 50, IDLE_MS)
            if changes and watcher.outgrown(changes):
                watcher.close()
                watcher = FolderWatch(root.resolve())
            if changes:
                _changed(root, changes, once, check_once)
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        watcher.close()


def _changed(root: Path, changes: set, options: argparse.Namespace, check_once: Callable[[argparse.Namespace], int]) -> None:
    print(f"guide check: changed: {for_terminal(_named(root, sorted(path for _, path in changes)))}", file=sys.stderr, flush=True)
    _report(options, check_once)


def _report(options: argparse.Namespace, check_once: Callable[[argparse.Namespace], int]) -> None:
    if options.format != "json":
        check_once(options)
        sys.stdout.flush()
        return
    printed = io.StringIO()
    with redirect_stdout(printed):
        check_once(options)
    if printed.getvalue().strip():
        print(json.dumps(json.loads(printed.getvalue()), ensure_ascii=False), flush=True)


def _named(root: Path, paths: list[str]) -> str:
    shown = []
    for path in paths[:SHOWN_CHANGES]:
        try:
            shown.append(Path(path).relative_to(root.resolve()).as_posix())
        except ValueError:
            shown.append(path)
    more = len(paths) - SHOWN_CHANGES
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
