"""The start line a server logs once it has checked its docroot, and what was parsed kept after it."""

import logging

from guide.docroot.folder import Docroot
from guide.docroot.lint import checked
from guide.server import work
from guide.server.errors import one_line

log = logging.getLogger("guide")


def start_line(docroot: Docroot) -> str:
    """One line naming the docroot, what it holds and how many authoring errors it has.

    The count comes from `guide check`'s kept report when nothing changed since it
    was made (a restart reads no template), and is kept for it.
    """
    built = docroot.build()
    layout = built.snapshot.layout
    counts = ", ".join(_count(len(table), kind) for kind, table in _tables(layout))
    errors = len(checked(built, docroot.store).problems)
    verdict = f"{_count(errors, 'authoring error')} (`guide check {docroot.root}` lists them)" if errors else "no authoring errors"
    return f"serving {docroot.root}: {counts}; {verdict}"


async def report_start(docroot: Docroot) -> None:
    """Log the start line once the docroot has been checked, then keep what was parsed.

    Both are background work: a server that stops (a client that asked one
    question and left) does not wait for a check nobody will read. Kept files are
    replaced atomically, so a save cut short leaves the old one.
    """
    try:
        log.info(await work.in_background(start_line, docroot))
        await work.in_background(lambda: docroot.keep_parses(if_loaded=True))
    except Exception as error:  # a start report must never stop the server
        log.warning("could not check %s at start: %s", docroot.root, one_line(error))


def entry_counts(layout) -> dict[str, int]:
    """How many commands, skills, partials and documents a snapshot's layout holds, by kind."""
    return {kind: len(table) for kind, table in _tables(layout)}


def _tables(layout):
    return (("command", layout.commands), ("skill", layout.skills), ("partial", layout.partials), ("document", layout.documents))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
