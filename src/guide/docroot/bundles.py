"""Bundles of documents: what a folder address, a named collection or the session context stands for, and their checks.

A bundle's documents are those that apply (C2: `requires-*` hold), in order: a
folder's by path; a collection's entry by entry, each glob's or folder's matches
by path, a document named twice kept where it first comes. Each is served as a
section: a heading naming it (`# Title (guide://lang/python)`, its `title:` or
else its path), then its text (a `.txt`, `.json` or YAML document in a fenced
block). `guide check` reports what a collection or `instructions:` names that
is not there: a document no file is (with the one it resembles), a glob or
folder matching none, an unknown `@collection`, and collections that include
themselves. A collection with such a problem cannot be read until it is fixed.
"""

import posixpath
import re
from collections.abc import Iterable, Mapping
from typing import Any

from guide import address
from guide.docroot import files
from guide.docroot.built import Built
from guide.docroot.config import CONFIG_NAME
from guide.docroot.entries import Entry
from guide.docroot.frontmatter import Parsed
from guide.docroot.layout import has_frontmatter
from guide.docroot.memo import Once
from guide.errors import Problem
from guide.spelling import near_miss

MAX_CONTEXT = 16 * 1024
"""The most characters of session context (`instructions:`) a client is given as it connects: a few pages, since a client
keeps the server's instructions in every turn's prompt."""
CHECKS: Once[dict[str | None, tuple[Problem, ...]]] = Once("the problems of each collection (None: of `instructions`)")
FENCED = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".txt": "text"}
"""The documents served in a fenced block inside a bundle, with the block's language."""
_TICKS = re.compile("`{3,}")


def members(built: Built, entries: Iterable[Entry]) -> list[str]:
    """The applying documents `entries` name, in order, each once."""
    entries = tuple(entries)
    if not entries:
        return []
    documents, found = built.documents(), {}
    _gather(built.config.collections, entries, documents, found, set())
    return list(found)


def folder_members(built: Built, folder: str) -> list[str]:
    """The applying documents in `folder` and below, by path."""
    return Entry(folder.strip("/") + "/", 0).matches(built.documents())


def problems(built: Built, collection: str) -> tuple[Problem, ...]:
    """What is wrong with a collection and every collection it includes."""
    found = built.value(CHECKS, lambda: _checks(built))
    reached = _reached(built.config.collections, collection)
    return tuple(problem for name in reached for problem in found.get(name, ()))


def report(built: Built) -> tuple[list[Problem], list[Problem]]:
    """Every collection's and `instructions:`'s problems, and the notes, for `guide check`."""
    found = [problem for listed in built.value(CHECKS, lambda: _checks(built)).values() for problem in listed]
    documents = built.snapshot.layout.documents
    notes = [
        Problem(path=CONFIG_NAME, line=entries[0].line, message=(
            f"collection `{name}` has the name of document {documents[name]}: `guide://@{name}` reaches Guide as `guide://{name}`"
            f" (normalising drops the @), which reads the document; the collection is read at {address.collection_address(name)}"))
        for name, entries in built.config.collections.items() if name in documents
    ]
    return found, notes


def section(path: str, rel: str, title: str | None, text: str) -> str:
    """One document as a bundle serves it: heading, then text.

    A document that is not Markdown is put in a fenced block, so it stays as written.
    """
    language = FENCED.get(posixpath.splitext(rel)[1])
    if language is not None:
        fence = "`" * max([3, *(len(run) + 1 for run in _TICKS.findall(text))])
        text = f"{fence}{language}\n{text.rstrip()}\n{fence}"
    return f"# {title or path} ({address.document_address(path)})\n\n{text.strip()}\n"


def title(built: Built, rel: str) -> str | None:
    """A document's `title:`, when it has one (`guide.docroot.display`)."""
    return built.display(rel).title


def body(built: Built, rel: str) -> str:
    """A document's text as served, read now; `files.Refused` says why not."""
    if not has_frontmatter(rel):
        return files.read_text(built.snapshot.root, rel, built.files.limit)
    parsed = built.parsed(rel)
    if not isinstance(parsed, Parsed):
        raise files.Refused(str(parsed))
    return parsed.body


def context_size(built: Built) -> int:
    """The characters the whole session context takes, for `guide check`."""
    documents, lengths = built.snapshot.layout.documents, []
    for path in members(built, built.config.instructions):
        rel = documents[path]
        try:
            lengths.append(len(section(path, rel, title(built, rel), body(built, rel))))
        except files.Refused:
            continue  # the document's own check says why
    return sum(lengths) + max(len(lengths) - 1, 0)  # one line apart, as served


def _gather(collections: Mapping[str, tuple[Entry, ...]], entries: Iterable[Entry], documents: Mapping[str, str], found: dict[str, None],
            visiting: set[str]) -> None:
    for entry in entries:
        name = entry.collection
        if name is None:
            found.update(dict.fromkeys(entry.matches(documents)))
        elif name in collections and name not in visiting:  # a loop is reported by the checks, never followed
            _gather(collections, collections[name], documents, found, visiting | {name})


def _reached(collections: Mapping[str, tuple[Entry, ...]], start: str) -> list[str]:
    """`start` and every collection it includes, directly or not, in the order first met."""
    order, pending = [start], [start]
    while pending:
        for entry in collections.get(pending.pop(), ()):
            if entry.collection is not None and entry.collection not in order:
                order.append(entry.collection)
                pending.append(entry.collection)
    return order


def _checks(built: Built) -> dict[str | None, tuple[Problem, ...]]:
    collections, paths = built.config.collections, built.snapshot.layout.documents
    found: dict[str | None, list[Problem]] = {}
    for name, entries in [*collections.items(), (None, built.config.instructions)]:
        for entry in entries:
            message = _entry_problem(entry, collections, paths)
            if message:
                found.setdefault(name, []).append(Problem(path=CONFIG_NAME, line=entry.line, message=message))
    for name, problem in _loops(collections):
        found.setdefault(name, []).append(problem)
    size = context_size(built) if built.config.instructions and not found.get(None) else 0
    if size > MAX_CONTEXT:
        message = (f"`instructions` come to {size:,} characters with their headings; a client is given at most {MAX_CONTEXT:,} as it connects,"
                   " so the rest is cut with a note: name fewer or shorter documents")
        found.setdefault(None, []).append(Problem(path=CONFIG_NAME, line=built.config.instructions[0].line, message=message))
    return {name: tuple(listed) for name, listed in found.items()}


def _entry_problem(entry: Entry, collections: Mapping[str, Any], paths: Mapping[str, str]) -> str | None:
    name = entry.collection
    if name is not None:
        if name in collections:
            return None
        found = near_miss(name, collections)
        known = ", ".join(f"@{known}" for known in sorted(collections)) or "none"
        return f"`@{name}` names no collection{_hint(found, '@')} (collections: {known})"
    if entry.matches(paths):
        return None
    if entry.folder or entry.glob:
        return f"`{entry.text}` matches no document (documents are named by their address path, without extension: `lang/python`)"
    stem = posixpath.splitext(entry.text)[0]
    found = stem if stem in paths else near_miss(entry.text, paths)
    return f"`{entry.text}` names no document{_hint(found)}"


def _loops(collections: Mapping[str, tuple[Entry, ...]]) -> Iterable[tuple[str, Problem]]:
    """Each loop of collections that include each other, once, at the entry that closes it."""
    told: set[frozenset[str]] = set()
    for start in sorted(collections):
        loop = _loop(collections, start, [start])
        if loop is not None and frozenset(loop) not in told:
            told.add(frozenset(loop))
            entry = next(entry for entry in collections[loop[-2]] if entry.collection == start)
            yield start, Problem(path=CONFIG_NAME, line=entry.line,
                                 message=f"collections include each other in a loop: {' -> '.join('@' + name for name in loop)}; remove one of these entries")


def _loop(collections: Mapping[str, tuple[Entry, ...]], start: str, path: list[str]) -> list[str] | None:
    for entry in collections.get(path[-1], ()):
        name = entry.collection
        if name == start:
            return [*path, name]
        if name is not None and name in collections and name not in path:
            found = _loop(collections, start, [*path, name])
            if found:
                return found
    return None


def _hint(found: str | None, mark: str = "") -> str:
    return f"; did you mean `{mark}{found}`?" if found else ""

