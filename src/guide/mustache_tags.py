"""The tags of a Mustache body, read by the rules the engine tokenizes with (set-delimiter tags included).

A plain scan, without the engine: `guide.render` checks nesting and pairs
sections with it before the engine tokenizes anything, and the export of
skills rewrites the tags that name values still to be asked
(`guide.routes.open_finish`). An unclosed tag ends the scan.
"""

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple


class Tag(NamedTuple):
    """One tag of a body: its sigil (empty for a variable), its label, where it starts and ends, the delimiters in force."""

    sigil: str
    label: str
    start: int
    end: int
    delimiters: tuple[str, str]


def tags(body: str) -> Iterator[Tag]:
    """Every tag of a body in order, read by the rules the engine tokenizes with (set-delimiter tags included)."""
    opener, closer = "{{", "}}"
    position = 0
    while (start := body.find(opener, position)) != -1:
        head = start + len(opener)
        if head >= len(body):
            return
        sigil = body[head]
        if sigil in ("{", "="):
            close = body.find(("}" if sigil == "{" else "=") + closer, head + 1)
            inner, position = body[head + 1:close], close + 1 + len(closer)
        else:
            sigil = sigil if sigil in "&#^/>!" else ""
            close = body.find(closer, head + len(sigil))
            inner, position = body[head + len(sigil):close], close + len(closer)
        if close < 0:
            return
        yield Tag(sigil, inner.strip(), start, position, (opener, closer))
        if sigil == "=":
            delimiters = re.findall(r"[^ ]+", inner)
            if len(delimiters) != 2:
                return
            opener, closer = delimiters


def with_lines(body: str, found: Iterable[Tag]) -> Iterator[tuple[Tag, int]]:
    """Each tag with the line (within the body) it starts on, counted as the tags go."""
    line, counted = 1, 0
    for tag in found:
        line += body.count("\n", counted, tag.start)
        counted = tag.start
        yield tag, line
