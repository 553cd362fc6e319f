"""Parse `guide://` addresses and prompt routes into targets; knows nothing of files (C3)."""

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit

from guide.errors import InputError, NotFoundError

SCHEME = "guide"
PROMPT_PREFIXES = ("_", ":", ";")

TargetKind = Literal["help", "command", "skill", "member", "document"]


@dataclass(frozen=True)
class Target:
    """What an address asks for: its kind, path segments, keywords and whether help is wanted.

    `path` holds, by kind: help and command -> the decoded segments (a command's
    name followed by its args); skill -> (name,); member -> (skill, member path);
    document -> (path,).
    """

    kind: TargetKind
    path: tuple[str, ...]
    keywords: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    help: bool = False


@lru_cache(maxsize=1024)
def parse_uri(uri: str) -> Target:
    """Read a `guide://` address; raise `NotFoundError` for one that names nothing Guide serves.

    Results are shared between callers (the cache): treat a `Target` as read-only.
    """
    parts = urlsplit(uri)
    if parts.scheme != SCHEME:
        raise NotFoundError(f"{uri} is not a guide:// address")
    raw = parts.netloc + parts.path
    keywords, wants_help = _query(parts.query)
    if raw.startswith("_"):
        segments = tuple(unquote(segment) for segment in raw[1:].split("/") if segment)
        if segments[:1] == ("help",):
            return Target("help", segments[1:])
        if not segments:
            raise NotFoundError(f"{uri} names no command; guide://_help lists them")
        return Target("command", segments, keywords, wants_help)
    if raw.startswith("$"):
        name, _, member = raw[1:].partition("/")
        if member:
            return Target("member", (unquote(name), unquote(member)))
        return Target("skill", (unquote(name),), keywords, wants_help)
    path = unquote(raw).strip("/")
    if not path:
        raise NotFoundError(f"{uri} names no document; guide://_help lists commands and skills")
    return Target("document", (path,))


def parse_prompt(text: str) -> tuple[tuple[str, ...], list[str]]:
    """Split a `guide` prompt argument into command segments and the remaining tokens."""
    try:
        tokens = shlex.split(text)
    except ValueError as error:
        raise InputError(f"cannot read the prompt text: {error}") from None
    if not tokens or tokens[0][:1] not in PROMPT_PREFIXES or len(tokens[0]) < 2:
        raise InputError("a guide prompt starts with a command: _name, :name or ;name, then --flags and args")
    segments = tuple(segment for segment in tokens[0][1:].split("/") if segment)
    return segments, tokens[1:]


def read_flags(tokens: Sequence[str], argrequired: Sequence[str] = ()) -> tuple[dict[str, tuple[str, ...]], list[str], bool]:
    """Turn prompt tokens into keywords, positional args and whether `--help` was given.

    `--k=v` gives k the value v; `--k v` does so only for flags in `argrequired`;
    a bare `--flag` is `true` and `--no-flag` is `false`.
    """
    keywords: dict[str, list[str]] = {}
    args: list[str] = []
    wants_help = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if not token.startswith("--") or token == "--":
            args.append(token)
            continue
        name, has_value, value = token[2:].partition("=")
        if name == "help" and not has_value:
            wants_help = True
            continue
        if not has_value:
            if name in argrequired:
                if index >= len(tokens):
                    raise InputError(f"flag --{name} needs a value")
                value = tokens[index]
                index += 1
            elif name.startswith("no-") and len(name) > 3:
                name, value = name[3:], "false"
            else:
                value = "true"
        keywords.setdefault(name, []).append(value)
    return {name: tuple(values) for name, values in keywords.items()}, args, wants_help


def _query(query: str) -> tuple[dict[str, tuple[str, ...]], bool]:
    keywords: dict[str, list[str]] = {}
    wants_help = False
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "help":
            wants_help = True
            continue
        keywords.setdefault(name, []).append(value)
    return {name: tuple(values) for name, values in keywords.items()}, wants_help
