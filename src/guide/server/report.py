"""The line a starting server logs: the docroot, what it holds and how many authoring errors it has."""

import asyncio
import logging

from guide.docroot.folder import Docroot

log = logging.getLogger("guide")


def start_line(docroot: Docroot) -> str:
    """One line naming the docroot, what it holds and how many authoring errors it has."""
    snapshot = docroot.snapshot()
    layout = snapshot.layout
    counts = ", ".join(_count(len(table), kind) for kind, table in _tables(layout))
    errors = len(snapshot.problems())
    verdict = f"{_count(errors, 'authoring error')} (`guide check {docroot.root}` lists them)" if errors else "no authoring errors"
    return f"serving {docroot.root}: {counts}; {verdict}"


async def report_start(docroot: Docroot) -> None:
    """Log the start line once the docroot has been checked, off the event loop."""
    try:
        log.info(await asyncio.to_thread(start_line, docroot))
    except Exception as error:  # a start report must never stop the server
        log.warning("could not check %s at start: %s", docroot.root, error)


def _tables(layout):
    return (("command", layout.commands), ("skill", layout.skills), ("partial", layout.partials), ("document", layout.documents))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
