"""The entries of a bundle in guide.yaml: `collections:` and `instructions:` as written, and what one entry matches.

An entry names documents by their address path (`review/checklist`), by a glob
(`lang/*`: `*` and `?` stay within one folder, `**` crosses folders), by a folder
(`lang/`: every document in it and below), or names another collection
(`@guidelines`). This module reads their shape; what they name is checked
against the docroot by `guide.docroot.bundles`.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from guide.address import COLLECTION_MARK, PREFIX

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""A collection's name: what follows `@` in its address and in other entries."""
GLOB_MARKS = ("*", "?")
Told = Callable[[tuple[Any, ...], str], None]
"""Told each shape problem: the keys that lead to it in guide.yaml, and what is wrong."""
Lines = Callable[[tuple[Any, ...]], int]
"""The guide.yaml line of the value at some keys."""


@dataclass(frozen=True)
class Entry:
    """One entry as written in guide.yaml, and its line there."""

    text: str
    line: int

    @property
    def collection(self) -> str | None:
        """The collection it names (`@name`), if it names one."""
        return self.text[1:] if self.text.startswith(COLLECTION_MARK) else None

    @property
    def folder(self) -> bool:
        """Whether it names a folder (`lang/`): every document in it and below."""
        return self.text.endswith("/")

    @property
    def glob(self) -> bool:
        """Whether it matches documents by a pattern (`lang/*`) rather than naming one."""
        return any(mark in self.text for mark in GLOB_MARKS)

    def matches(self, paths: Iterable[str]) -> list[str]:
        """The document paths among `paths` it names, sorted."""
        if self.folder:
            return sorted(path for path in paths if path.startswith(self.text))
        if self.glob:
            pattern = _pattern(self.text)
            return sorted(path for path in paths if pattern.fullmatch(path))
        return [self.text] if self.text in paths else []


def read_collections(data: Any, problem: Told, lines: Lines) -> dict[str, tuple[Entry, ...]]:
    """Each collection's entries in order; a broken one is told, then left out."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        problem(("collections",), "`collections` must be a mapping of collection name to a list of documents (`guidelines: [lang/*]`)")
        return {}
    found = {}
    for name, entries in data.items():
        if not isinstance(name, str) or not NAME.fullmatch(name):
            problem(("collections",), f"collection name {name!r} must be 1-64 letters, digits, '-' or '_', starting with a letter or digit")
        elif not isinstance(entries, list) or not entries:
            problem(("collections", name), f"collection {name!r} must be a non-empty list of documents, globs, folders or '@collections'")
        else:
            read = _entries(entries, ("collections", name), problem, lines)
            if read is not None:
                found[name] = read
    return found


def read_instructions(data: Any, problem: Told, lines: Lines) -> tuple[Entry, ...]:
    """The entries of `instructions:`; broken ones are told, and none kept."""
    if data is None:
        return ()
    if isinstance(data, str):
        data, keys = [data], ("instructions",)
        found = _entries(data, keys, problem, lambda _: lines(keys))
    elif isinstance(data, list) and data:
        found = _entries(data, ("instructions",), problem, lines)
    else:
        problem(("instructions",), "`instructions` must be a document (`guidelines/start`) or a non-empty list of documents, globs, folders or '@collections'")
        return ()
    return found or ()


def _entries(items: list, keys: tuple[Any, ...], problem: Told, lines: Lines) -> tuple[Entry, ...] | None:
    """The entries of one list, or None when one of them is not an entry (each told)."""
    entries, broken = [], False
    for index, item in enumerate(items):
        message = _entry_problem(item)
        if message:
            problem((*keys, index), message)
            broken = True
        else:
            entries.append(Entry(item, lines((*keys, index))))
    return None if broken else tuple(entries)


def _entry_problem(item: Any) -> str | None:
    if not isinstance(item, str) or not item.strip() or item != item.strip():
        return f"entry {item!r} must be a document's path (`lang/python`), a glob (`lang/*`), a folder (`lang/`) or '@collection'"
    if item.startswith(PREFIX):
        return f"entry {item!r}: write the document's path as its address has it, without `{PREFIX}` (`{item[len(PREFIX):]}`)"
    if item.startswith("/") or "//" in item or any(part in (".", "..") for part in item.split("/")):
        return f"entry {item!r} must be a path inside the docroot, written as its address has it (`lang/python`, no leading `/` or `..`)"
    if item.startswith(COLLECTION_MARK) and not NAME.fullmatch(item[1:]):
        return f"entry {item!r} must name a collection: '@' then its name (letters, digits, '-' or '_')"
    return None


def _pattern(glob: str) -> re.Pattern[str]:
    """A glob as a pattern over document paths: `**` crosses folders, `*` and `?` stay within one."""
    parts = re.split(r"(\*\*/?|\*|\?)", glob)
    translated = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(translated.get(part, re.escape(part)) for part in parts))
