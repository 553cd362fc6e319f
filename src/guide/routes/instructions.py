"""The session context: the documents `instructions:` in guide.yaml names, given to every client as it connects (issue 37).

The server's instructions (`initialize`, or `server/discover` on 2026-07-28)
carry this text beside the catalog (`guide.server.catalog`). It is made once per
snapshot: the documents that apply, in order, each as a bundle serves it
(`guide.docroot.bundles.section`), within `MAX_CONTEXT` characters. Past that,
it stops after the last whole document that fits, with a note naming the
documents left out; `guide check` reports the size as an error. A document that
cannot be read is left out, with one log line per snapshot (`guide check` says why).
"""

import logging

from guide import address
from guide.docroot import bundles, files
from guide.docroot.built import Built
from guide.docroot.memo import Once

CONTEXT: Once[str] = Once("the session context: the text of guide.yaml's instructions")
MAX_NAMED = 5
"""The most documents a cut context's note names by address."""

log = logging.getLogger("guide")


def context(built: Built) -> str:
    """This snapshot's session context (empty without `instructions:`), made once."""
    return built.value(CONTEXT, lambda: _context(built))


def _context(built: Built) -> str:
    if not built.config.instructions:
        return ""  # the common case: nothing is listed or read for it
    documents = built.snapshot.layout.documents
    sections: list[tuple[str, str]] = []
    for path in bundles.members(built, built.config.instructions):
        rel = documents[path]
        try:
            sections.append((path, bundles.section(path, rel, bundles.title(built, rel), bundles.body(built, rel))))
        except files.Refused as error:
            log.warning("instructions: %s is left out of the session context: it %s", rel, error)
    whole = "\n".join(text for _, text in sections)
    if len(whole) <= bundles.MAX_CONTEXT:
        return whole
    for kept in range(len(sections) - 1, 0, -1):  # the whole documents that fit with the note
        cut = "\n".join([*(text for _, text in sections[:kept]), _note(len(whole), [path for path, _ in sections[kept:]])])
        if len(cut) <= bundles.MAX_CONTEXT:
            return cut
    return _note(len(whole), [path for path, _ in sections])


def _note(size: int, left: list[str]) -> str:
    named = ", ".join(address.document_address(path) for path in left[:MAX_NAMED])
    more = f" and {len(left) - MAX_NAMED} more" if len(left) > MAX_NAMED else ""
    return (f"(The session context stops here: guide.yaml's `instructions` come to {size:,} characters, and a session is given at most"
            f" {bundles.MAX_CONTEXT:,}. Read the rest when you need it: {named}{more}.)\n")
