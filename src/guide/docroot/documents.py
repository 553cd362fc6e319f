"""A document's frontmatter (C2): read, never served, and checked like an entrypoint's keys.

Only `.md` and `.mustache` documents have frontmatter. Its `description` is the
listed description (with `title`, `icon` and `audience`: `guide.docroot.display`) and its `requires-<flag>` keys decide whether the document
exists (`guide.docroot.built.Built.document`); any other key is a note, unless
it is a near miss of one of these (an error naming it). `elicitation` is never
asked on a document: a note says so. A document with an error (frontmatter that
is not YAML, a near-miss key, a `description` that is not text) is reported by
`guide check` and cannot be read until it is fixed, as an entrypoint cannot.
"""

from guide.docroot.built import Built
from guide.docroot.display import icon_issues
from guide.docroot.frontmatter import FrontmatterError, Parsed, locate
from guide.docroot.keys import key_issues
from guide.docroot.memo import Once
from guide.errors import Issue, Problem

CHECKS: Once[tuple[tuple[Problem, ...], tuple[Problem, ...]]] = Once("each document's frontmatter errors and notes, by file")
NEVER_ASKED = "`elicitation` here is never asked: a document is served without asking for input; declare forms in a command or a SKILL.md"


def checks(built: Built, rel: str) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
    """A document's frontmatter errors and notes, whatever its `requires-*` say (none for a file without frontmatter)."""
    if rel not in built.snapshot.sources:
        return (), ()
    return built.value(CHECKS, lambda: _check(built, rel), rel)


def _check(built: Built, rel: str) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
    front = built.front(rel)
    if isinstance(front, FrontmatterError) and front.line is None:
        return (), ()  # the file could not be read at all: reading the document says why (one that is gone is not found)
    if isinstance(front, FrontmatterError):
        return (Problem(path=rel, line=front.line, message=str(front)),), ()
    if not front.meta:
        return (), ()  # the common case: no frontmatter, and nothing is read to say so
    errors, notes = key_issues("document", rel, front.meta, built.config, built.config_ok)
    errors += icon_issues(rel, front.meta, built.icon)
    if "elicitation" in front.meta:
        notes.append(Issue(origin=rel, keys=("elicitation",), message=NEVER_ASKED))
    return tuple(_located(built, issue) for issue in errors), tuple(_located(built, issue) for issue in notes)


def _located(built: Built, issue: Issue) -> Problem:
    parsed = built.parsed(issue.origin)
    line = locate(parsed.yaml_text, issue.keys, parsed.first_line) if isinstance(parsed, Parsed) else None
    return Problem(path=issue.origin, line=line, message=issue.message)
