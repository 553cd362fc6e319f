"""Every `guide://` address and prompt route: parsed and formatted here, and nowhere else (C3).

An address names help, a command (with args and keywords), a skill (with
keywords), a skill member, a document, or a bundle of documents: a folder
(`guide://lang/`, with its trailing slash) or a named collection of guide.yaml
(`guide://@guidelines`). `parse` reads one into a `Target`;
`format` writes a `Target` back, quoting what needs it, so that
`parse(format(target)) == target` (except for a segment `.` or `..`, which no
URL can carry: normalising removes it). A collection is written `guide://%40name`:
URL normalisation (WHATWG, as every MCP client applies it) reads an `@` right
after `guide://` as an empty user name and drops it, so `guide://@name` reaches
Guide as `guide://name`, a document address; the resolver serves the collection
there when no document has that name (`guide.routes.lookup`). Prompt routes (`_name`, `:name`, `;name`
followed by flags) and prompt names are read and written here too. This module
knows nothing of files.
"""

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from pydantic_core import Url

from guide.errors import InputError, NotFoundError
from guide.protocol import HELP
from guide.text import clip

SCHEME = "guide"
PREFIX = f"{SCHEME}://"
SKILL_SCHEME = "skill"
"""The Skills extension's addresses: `skill://<name>/SKILL.md` and `skill://<name>/<member>` (SEP-2640)."""
SKILL_FILE = "SKILL.md"
COMMAND_MARK = "_"
SKILL_MARK = "$"
COLLECTION_MARK = "@"
"""What starts a named collection's address (`guide://@guidelines`), written `%40` where it must survive normalisation."""
MAX_LENGTH = 16 * 1024
"""The longest address or prompt text Guide reads, in characters: far beyond any real one, and cheap to refuse."""
PROMPT_PREFIXES = ("_", ":", ";")
"""The marks a prompt route may start with; the first is the canonical one."""

_QUOTING = re.compile(r"['\"\\]")
_SPACES = re.compile("[ \t\r\n]+")
"""What shlex treats as quoting and as space in a prompt line (POSIX mode, no comments)."""
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")
"""What `quote` leaves as it is."""

TargetKind = Literal["help", "command", "skill", "member", "document", "folder", "collection"]
EntrypointKind = Literal["command", "skill"]
"""The targets that are entrypoints: files with forms, rendered for a call."""
Keywords = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Target:
    """What an address asks for: its kind, path segments, keywords and whether help is wanted.

    `path` holds, by kind: help -> the segments after `_help` (a command name, or
    nothing for the overview); command -> the decoded segments (its name followed
    by its args); skill -> (name,); member -> (skill, member path); document -> (path,);
    folder -> (folder path, without its trailing slash); collection -> (name,).
    `skill_file` marks a skill read as the Skills extension's `skill://<name>/SKILL.md`.
    """

    kind: TargetKind
    path: tuple[str, ...]
    keywords: Keywords = field(default_factory=dict)
    help: bool = False
    skill_file: bool = False


@dataclass(frozen=True)
class PromptRoute:
    """A `guide` prompt line: the command segments it names and the tokens after them."""

    segments: tuple[str, ...]
    tokens: tuple[str, ...]


def check_length(text: str, what: str) -> None:
    """Refuse an address, prompt line or set of prompt arguments longer than `MAX_LENGTH` characters."""
    if len(text) > MAX_LENGTH:
        raise InputError(f"{what} is {len(text)} characters long; Guide reads at most {MAX_LENGTH}")


def normal(uri: str) -> str:
    """An address as every route reads it: the WHATWG URL normal form, the one MCP clients send.

    The scheme is lower-cased, `.` and `..` segments are removed (`%2E` counts as
    a dot) and unsafe characters are percent-encoded. FastMCP's client and the
    server's resource route both normalise this way, so the `read_resource` tool
    must too: the same text then names the same thing on every route (C3).
    """
    try:
        return str(Url(uri))
    except ValueError:
        raise NotFoundError(f"{clip(uri)} is not a valid {PREFIX} address") from None


def parse(uri: str) -> Target:
    """Read a `guide://` address; raise `NotFoundError` for one that names nothing Guide serves."""
    check_length(uri, "the address")
    normalised = normal(uri)
    parts = urlsplit(normalised)
    if normalised.startswith(f"{SKILL_SCHEME}://"):
        return _skill_file(parts, uri)
    if not normalised.startswith(PREFIX):
        raise NotFoundError(f"{clip(uri)} is not a {PREFIX} address")
    raw = parts.netloc + parts.path
    keywords, wants_help = _query(parts.query)
    if raw.startswith(COMMAND_MARK):
        segments = tuple(unquote(segment) for segment in raw[1:].split("/") if segment)
        if segments[:1] == (HELP,):
            return Target("help", segments[1:])
        if not segments:
            raise NotFoundError(f"{clip(uri)} names no command; {help_address()} lists them")
        return Target("command", segments, keywords, wants_help)
    if raw.startswith(SKILL_MARK):
        name, _, member = raw[1:].partition("/")
        if member:
            return Target("member", (unquote(name), unquote(member)))
        return Target("skill", (unquote(name),), keywords, wants_help)
    text = unquote(raw)
    path = text.strip("/")
    if text.startswith(COLLECTION_MARK):
        if not path[1:]:
            raise NotFoundError(f"{clip(uri)} names no collection; {help_address()} lists the collections of guide.yaml")
        return Target("collection", (path[1:],))
    if not path:
        raise NotFoundError(f"{clip(uri)} names no document; {help_address()} lists commands, skills and documents")
    return Target("folder" if text.endswith("/") else "document", (path,))


def format(target: Target) -> str:
    """The address of a target, quoted so that `parse` reads it back unchanged."""
    if target.kind == "help":
        return PREFIX + COMMAND_MARK + "/".join(_segment(part) for part in (HELP, *target.path))
    if target.kind == "member":
        skill, member = target.path
        return f"{PREFIX}{SKILL_MARK}{_segment(skill)}/{quote(member, safe='/')}"
    if target.kind == "document":
        return PREFIX + quote(target.path[0], safe="/")
    if target.kind == "folder":
        return PREFIX + quote(target.path[0], safe="/") + "/"
    if target.kind == "collection":
        return PREFIX + quote(COLLECTION_MARK + target.path[0], safe="")
    if target.skill_file:
        address = skill_file_address(target.path[0])
    else:
        mark = COMMAND_MARK if target.kind == "command" else SKILL_MARK
        address = PREFIX + mark + "/".join(_segment(part) for part in target.path)
    pairs = [(name, value) for name, values in target.keywords.items() for value in values]
    if target.help:
        pairs.append((HELP, ""))
    return f"{address}?{urlencode(pairs, quote_via=quote)}" if pairs else address


def placeholder(choices: Sequence[str] | None, type_name: str) -> str:
    """How an example address marks a value still to fill in: `<a|b|c>` for its choices, else `<type>` (`<string>`)."""
    return "<" + ("|".join(_segment(choice) for choice in choices) if choices else type_name) + ">"


def example(uri: str, args: Sequence[str] = (), keywords: Keywords | None = None, blanks: Mapping[str, str] | None = None) -> str:
    """An entrypoint's address as a caller would read it again: its args and keywords, then each blank.

    `uri` is the entrypoint's own address (`guide://_review`); a blank is written
    `name=<placeholder>` with the placeholder left as it is (see `placeholder`),
    so the address shows what to fill in; everything else is quoted as `format` does.
    """
    address = uri + "".join("/" + _segment(arg) for arg in args)
    pairs = [(name, value) for name, values in (keywords or {}).items() for value in values]
    filled = [f"{quote(name, safe='')}={value}" for name, value in (blanks or {}).items()]
    query = "&".join(part for part in (urlencode(pairs, quote_via=quote), *filled) if part)
    return f"{address}?{query}" if query else address


def command_address(name: str, args: Sequence[str] = (), keywords: Keywords | None = None) -> str:
    """The address of a command (`name` may hold `/`), with its args and keywords."""
    return format(Target("command", (*name.split("/"), *args), keywords or {}))


def skill_address(name: str, keywords: Keywords | None = None) -> str:
    """The address of a skill's entrypoint, with its keywords."""
    return format(Target("skill", (name,), keywords or {}))


def member_address(skill: str, member: str) -> str:
    """The address of a file inside a skill folder."""
    return format(Target("member", (skill, member)))


def document_address(path: str) -> str:
    """The address of a document, by its path without extension."""
    return format(Target("document", (path,)))


def folder_address(path: str) -> str:
    """The address of every document in a folder and below it (`guide://lang/`)."""
    return format(Target("folder", (path.strip("/"),)))


def collection_address(name: str) -> str:
    """The address of a named collection of guide.yaml, as it survives normalisation (`guide://%40guidelines`)."""
    return format(Target("collection", (name,)))


def help_address(command: str | None = None) -> str:
    """The address of the help overview, or of one command's description."""
    return format(Target("help", tuple(command.split("/")) if command else ()))


def skill_file_address(skill: str, path: str = SKILL_FILE) -> str:
    """A file of a skill as the Skills extension names it: its `SKILL.md` (the entrypoint) or a member."""
    return f"{SKILL_SCHEME}://{_segment(skill)}/{quote(path, safe='/')}"


def template(address: str, fields: Sequence[str]) -> str:
    """A resource template (RFC 6570) of an entrypoint address: its fields as query keywords."""
    return f"{address}{{?{','.join(fields)}}}"


def address_of_template(template_uri: str) -> str:
    """The entrypoint address a resource template was made from."""
    return template_uri.split("{", 1)[0]


def prompt_name(command: str) -> str:
    """A command's own prompt name: its name with `/` replaced by `.`."""
    return command.replace("/", ".")


def command_of_prompt(name: str) -> str:
    """The command a per-command prompt name stands for."""
    return name.replace(".", "/")


def prompt_route(command: str, typed: str = "") -> str:
    """A prompt route to a command, with the mark the person started typing (`_` by default)."""
    mark = typed[:1] if typed[:1] in PROMPT_PREFIXES else PROMPT_PREFIXES[0]
    return mark + command


def parse_prompt(text: str) -> PromptRoute:
    """Split a `guide` prompt line into the command segments and the remaining tokens."""
    check_length(text, "the prompt text")
    if _QUOTING.search(text):
        try:
            tokens = shlex.split(text)
        except ValueError as error:
            raise InputError(f"cannot read the prompt text: {error}") from None
    else:  # the same split as shlex's without quotes, at a fraction of its cost
        tokens = [token for token in _SPACES.split(text) if token]
    if not tokens or tokens[0][:1] not in PROMPT_PREFIXES or len(tokens[0]) < 2:
        raise InputError("a guide prompt starts with a command: _name, :name or ;name, then --flags and args")
    segments = tuple(segment for segment in tokens[0][1:].split("/") if segment)
    return PromptRoute(segments, tuple(tokens[1:]))


def read_flags(
    tokens: Sequence[str], argrequired: Sequence[str] = (), valued: Sequence[str] = ()
) -> tuple[dict[str, tuple[str, ...]], list[str], bool]:
    """Turn prompt tokens into keywords, positional args and whether `--help` was given.

    `--k=v` gives k the value v. `--k v` does so for flags in `argrequired` and
    for flags in `valued` (the fields whose type takes a value, so `--severity
    sev2` means what it says); a `valued` flag with no value after it is an error.
    Any other bare `--flag` is `true`, and `--no-flag` is `false`.
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
        if name == HELP and not has_value:
            wants_help = True
            continue
        if not has_value:
            if name in argrequired or name in valued:
                following = tokens[index] if index < len(tokens) else None
                if following is None or (name not in argrequired and following.startswith("--")):
                    raise InputError(f"flag --{name} needs a value: write --{name}=VALUE or --{name} VALUE")
                value = following
                index += 1
            elif name.startswith("no-") and len(name) > 3:
                name, value = name[3:], "false"
            else:
                value = "true"
        keywords.setdefault(name, []).append(value)
    return {name: tuple(values) for name, values in keywords.items()}, args, wants_help


def _skill_file(parts, uri: str) -> Target:
    path = unquote(parts.path).strip("/")
    if not parts.netloc or not path:
        raise NotFoundError(f"{clip(uri)} names no skill file; skills/list lists the skills")
    if path == SKILL_FILE:
        keywords, wants_help = _query(parts.query)
        return Target("skill", (unquote(parts.netloc),), keywords, wants_help, skill_file=True)
    return Target("member", (unquote(parts.netloc), path))


def _segment(text: str) -> str:
    return text if _UNRESERVED.fullmatch(text) else quote(text, safe="")  # most names need no escaping


def _query(query: str) -> tuple[dict[str, tuple[str, ...]], bool]:
    keywords: dict[str, list[str]] = {}
    wants_help = False
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == HELP:
            wants_help = True
            continue
        keywords.setdefault(name, []).append(value)
    return {name: tuple(values) for name, values in keywords.items()}, wants_help
