"""Resolve what a client asks to read against the docroot: text, a file to read, a bundle of them, or a call of an entrypoint (C3).

Every route ends here: resource reads, the `guide` prompt, per-command prompts
and the `read_resource` tool each hand over a read value (`AddressRead`,
`PromptRead`, `CommandRead`). The result depends only on the snapshot, so the
server may keep it for the snapshot's life; the server then reads the file, or
drives the call in the client's protocol era and hands the outcome to
`guide.routes.finish`.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from guide import address, collector
from guide.address import Keywords, Target
from guide.docroot import bundles, documents
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.layout import has_frontmatter
from guide.docroot.memo import Once
from guide.errors import AuthoringError, NotFoundError
from guide.forms.declare import digest
from guide.forms.failure import ADDRESS, Route
from guide.forms.sources import Live
from guide.forms.step import Request
from guide.protocol import PROJECT, ROUTE_PROMPT
from guide.routes import help as help_text
from guide.routes import suggest
from guide.text import clip

FORM_DIGESTS: Once[str] = Once("the digest of each entrypoint's forms, by kind and name")
HELP_HINT = f"{address.help_address()} lists the commands, skills and documents"


@dataclass(frozen=True)
class AddressRead:
    """A `guide://` (or `skill://`) address, as a resource read or the `read_resource` tool sends it."""

    uri: str

    @property
    def size(self) -> int:
        """How much text the read carries."""
        return len(self.uri)


@dataclass(frozen=True)
class PromptRead:
    """A line of the `guide` prompt: `_review --mode=branch`, `:review --mode branch`, `;review --mode=branch`."""

    line: str

    @property
    def size(self) -> int:
        """How much text the read carries."""
        return len(self.line)


@dataclass(frozen=True)
class CommandRead:
    """A command's own prompt, with its arguments (each a field of its forms)."""

    command: str
    arguments: tuple[tuple[str, str], ...]

    @property
    def size(self) -> int:
        """How much text the read carries."""
        return len(self.command) + sum(len(name) + len(value) for name, value in self.arguments)


Read = AddressRead | PromptRead | CommandRead


@dataclass(frozen=True)
class Document:
    """A document or skill member to read: its file, and the error to give if it vanished meanwhile."""

    path: str
    missing: NotFoundError
    built: Built | None = None
    """For a `.md` or `.mustache` document, the build that read its frontmatter: it is served without it (C2). None: served as written."""


@dataclass(frozen=True)
class Bundle:
    """A folder's or a collection's documents, to read in one go, in order."""

    uri: str
    """The bundle's own address, for what its read says (`guide://lang/`, `guide://%40guidelines`)."""
    paths: tuple[str, ...]
    """Each document's address path, in order: each is checked as it is read (`served_document`), so a read past the cap reads no more."""
    built: Built


@dataclass(frozen=True)
class Call:
    """An entrypoint with the keywords and args one read brings, in the build it was found in."""

    built: Built
    entrypoint: Entrypoint
    keywords: Keywords
    args: tuple[str, ...]
    skill_file: bool = False
    """Read as the Skills extension's `skill://<name>/SKILL.md`: served with its frontmatter (C3)."""
    route: Route = ADDRESS
    """How the caller read it, so a failure says how to read again in the same route (C7.12 c)."""
    def request(self, *, can_elicit: bool, active_phase: str | None, project: str = "", live: Mapping[str, Live] | None = None,
                url_mode: bool = False, unread_decline: float = 0.0) -> Request:
        """The core's view of this call, for a client that can (or cannot) answer forms (and open links, `url_mode`); `project` names
        the read's, if not the server's own; `live`: what its live sources offer now; `unread_decline`: the client's bound on declines."""
        entrypoint = self.entrypoint
        fingerprint = self.built.value(FORM_DIGESTS, lambda: digest(entrypoint.forms), (entrypoint.kind, entrypoint.name))
        return Request(
            entrypoint=entrypoint.uri,
            forms=entrypoint.forms,
            keywords=self.keywords,
            args=self.args,
            arg_fields=entrypoint.arg_fields,
            active_phase=active_phase,
            can_elicit=can_elicit,
            url_mode=url_mode,
            url_hosts=self.built.config.url_hosts,
            route=self.route,
            digest=fingerprint,  # worked out once per snapshot, not for every request
            project=project,
            live=live or {},
            unread_decline=unread_decline,
        )

    def supplied(self) -> dict[str, list[str]]:
        """The texts this call supplies for each field (keywords and args): what its live sources check beyond the values they offer."""
        texts: dict[str, list[str]] = {name: list(values) for name, values in self.keywords.items()}
        for name, arg in zip(self.entrypoint.arg_fields, self.args):
            texts.setdefault(name, []).append(arg)
        return texts


Resolved = str | Document | Bundle | Call


def resolve(built: Built, read: Read) -> Resolved:
    """Help text, the document or member to read, or the call of a command or skill that `read` names."""
    if isinstance(read, PromptRead):
        found = _prompt(built, read.line)
        return replace(found, route=Route(ROUTE_PROMPT, found.entrypoint.name)) if isinstance(found, Call) else found
    if isinstance(read, CommandRead):
        keywords = {name: (value,) for name, value in read.arguments}
        address.check_length("".join(name + value for name, value in read.arguments), "the prompt arguments")
        found = _target(built, Target("command", tuple(read.command.split("/")), keywords))
        return replace(found, route=Route(address.prompt_name(read.command))) if isinstance(found, Call) else found
    return _target(built, address.parse(read.uri))


def _target(built: Built, target: Target) -> Resolved:
    if target.kind == "help":
        if not target.path:
            with collector.paused():  # made of every file: bulk work (`guide.collector`)
                return help_text.overview(built)
        return help_text.describe(built, _command(built, target.path)[0])
    if target.kind == "member":
        skill, member = map(clip, target.path)
        return _document(built.member(*target.path), f"skill {skill} has no member {member}", lambda: suggest.member(built, *target.path))
    if target.kind == "document":
        if target.path[0] in built.config.collections and built.document(target.path[0]) is None:
            return _collection(built, target.path[0])  # `guide://@name` as clients send it: normalising drops the @
        return served_document(built, target.path[0])
    if target.kind == "folder":
        return _bundle(built, address.format(target), bundles.folder_members(built, target.path[0]), f"no document in folder {clip(target.path[0])}/")
    if target.kind == "collection":
        return _collection(built, target.path[0])
    if target.kind == "skill":
        entrypoint, args = _skill(built, target.path[0]), ()
    else:
        entrypoint, args = _command(built, target.path)
    if target.help:
        return help_text.describe(built, entrypoint)
    return _call(built, entrypoint, target.keywords, args, skill_file=target.skill_file)


def _prompt(built: Built, line: str) -> Resolved:
    route = address.parse_prompt(line)
    entrypoint, args = _command(built, route.segments)
    valued = [PROJECT, *(name for name, (_, field) in entrypoint.forms.fields.items() if field.type.flag_takes_value)]
    keywords, positional, wants_help = address.read_flags(route.tokens, entrypoint.listed("argrequired"), valued)
    if wants_help:
        return help_text.describe(built, entrypoint)
    return _call(built, entrypoint, keywords, (*args, *positional))


def _document(rel: str | None, what: str, suggestion: Callable[[], str | None], built: Built | None = None) -> Document:
    if rel is None:
        raise _not_found(what, suggestion())
    return Document(rel, _not_found(what, None), built)  # `missing`: if it vanishes before it is read


def served_document(built: Built, path: str) -> Document:
    """The document at an address path, if it applies and can be read (C2).

    One whose frontmatter has an error cannot be read, as an entrypoint cannot.
    """
    rel = built.snapshot.layout.documents.get(path)
    with_front = rel is not None and has_frontmatter(rel)
    if with_front:
        built.parsed(rel)  # read once, now: the one parse answers its `requires-*` and its checks, and holds the body served
    document = _document(built.document(path), f"no document {clip(path)}", lambda: suggest.document(built, path), built if with_front else None)
    problems = documents.checks(built, document.path)[0]
    if problems:
        raise AuthoringError(list(problems))
    return document


def _collection(built: Built, name: str) -> Bundle:
    """A named collection that can be read: one with a problem (or including one that has) cannot, as a broken entrypoint cannot."""
    if name not in built.config.collections:
        raise _not_found(f"no collection {clip(name)} in guide.yaml", suggest.collection(built, name))
    problems = bundles.problems(built, name)
    if problems:
        raise AuthoringError(list(problems))
    uri = address.collection_address(name)
    return _bundle(built, uri, bundles.members(built, built.config.collections[name]), f"collection {clip(name)} holds no document that applies")


def _bundle(built: Built, uri: str, paths: list[str], empty: str) -> Bundle:
    if not paths:
        raise NotFoundError(f"{empty}; {HELP_HINT}")
    return Bundle(uri, tuple(paths), built)


def _call(built: Built, entrypoint: Entrypoint, keywords: Keywords, args: tuple[str, ...], skill_file: bool = False) -> Call:
    problems = built.problems(entrypoint)
    if problems:
        raise AuthoringError(list(problems))
    return Call(built, entrypoint, keywords, tuple(args), skill_file)


def _command(built: Built, segments: tuple[str, ...]) -> tuple[Entrypoint, tuple[str, ...]]:
    found = built.find_command(segments)
    if found is None:
        raise _not_found(f"no command {clip('/'.join(segments))}", suggest.command(built, segments))
    return found


def _skill(built: Built, name: str) -> Entrypoint:
    skill = built.skill(name)
    if skill is None:
        raise _not_found(f"no skill {clip(name)}", suggest.skill(built, name))
    return skill


def _not_found(what: str, suggestion: str | None) -> NotFoundError:
    return NotFoundError(f"{what}; did you mean {suggestion}?" if suggestion else f"{what}; {HELP_HINT}")
