"""Mustache tags as the engine reads them, found without it: where each is, on which line, and a syntax error's line and words.

Guide scans a template's tags itself (set-delimiter tags included) before the
engine tokenizes it, so that what the engine would do at great cost (sections
nested thousands deep) is refused first, and so that an error names a line. The
export of skills rewrites the tags that name values still to be asked with the
same scan (`guide.routes.open_finish`).
"""

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import mstache

from guide.text import clip

_LOCATION = re.compile(r"\s*at line (\d+) column \d+")
_QUOTED = re.compile(r"""(['"])(.*)\1""", re.DOTALL)
TAG_QUOTE = 80
"""The most characters of a tag an error message quotes."""


class Tag(NamedTuple):
    """One tag of a body: its sigil (empty for a variable), its label, where it starts and ends, the delimiters in force."""

    sigil: str
    label: str
    start: int
    end: int
    delimiters: tuple[str, str]


def engine_problem(error: mstache.TokenException) -> tuple[int, str]:
    """The line and message of the engine's syntax error, its quoted tag clipped."""
    found = _LOCATION.search(str(error))
    # The engine quotes the tag with its line ending spelled out as a backslash and an n.
    message = _LOCATION.sub("", str(error)).replace("\\n", "").replace("\n", " ")
    message = _QUOTED.sub(lambda quote: f"'{clip(quote.group(2), TAG_QUOTE)}'", message)  # an unclosed tag may run to the end of the file
    return (int(found.group(1)) if found else 1), f"template error: {message}"


def section_problem(body: str) -> tuple[int, str] | None:
    """Where sections fail to pair: the line of a stray closing tag, or of the innermost section never closed.

    The engine's own report of an unclosed section can name an empty tag at the
    line of a later section, so the tags are paired here again.
    """
    opened: list[tuple[Tag, int]] = []
    for tag, line in with_lines(body, tags_of(body)):
        if tag.sigil in ("#", "^"):
            opened.append((tag, line))
        elif tag.sigil == "/" and opened and opened[-1][0].label == tag.label:
            opened.pop()
        elif tag.sigil == "/":
            inside = f"; the innermost open section is `{text_of(body, opened[-1][0])}`" if opened else ""
            return line, f"template error: Unopened section `{text_of(body, tag)}`: it closes no open section{inside}"
    if not opened:
        return None
    tag, line = opened[-1]
    closing = clip(f"{tag.delimiters[0]}/{tag.label}{tag.delimiters[1]}", TAG_QUOTE)
    return line, f"template error: Unclosed section `{text_of(body, tag)}`: it is opened here and never closed; end it with `{closing}`"


def text_of(body: str, tag: Tag) -> str:
    """A tag as written, clipped for a message."""
    return clip(body[tag.start:tag.end], TAG_QUOTE)


def tags_of(body: str) -> Iterator[Tag]:
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
