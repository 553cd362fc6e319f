"""Resolve a target against the docroot: the text of what never asks, or a call of an entrypoint (C3).

Every route ends here: resource reads, the `guide` prompt, per-command prompts
and the `read_resource` tool. A call is resolved once; the server then drives it
in the client's protocol era and hands the outcome to `guide.routes.finish`.
"""

from dataclasses import dataclass
from pathlib import Path

from guide import address
from guide.address import Keywords, Target
from guide.docroot import files
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot
from guide.docroot.snapshot import Snapshot
from guide.errors import AuthoringError, NotFoundError, Problem
from guide.forms.resolve import Request
from guide.forms.text import clip
from guide.routes import help as help_text
from guide.routes import suggest

HELP_HINT = f"{address.help_address()} lists the commands, skills and documents"


@dataclass(frozen=True)
class Call:
    """An entrypoint with the keywords and args one request brings, in the snapshot it was found in."""

    snapshot: Snapshot
    entrypoint: Entrypoint
    keywords: Keywords
    args: tuple[str, ...]
    active_phase: str | None
    skill_file: bool = False
    """Read as the Skills extension's `skill://<name>/SKILL.md`: served with its frontmatter (C3)."""

    def request(self, *, can_elicit: bool) -> Request:
        """The core's view of this call, for a client that can (or cannot) answer forms."""
        entrypoint = self.entrypoint
        return Request(
            entrypoint=entrypoint.uri,
            forms=entrypoint.forms,
            keywords=self.keywords,
            args=self.args,
            arg_fields=entrypoint.listed("args"),
            active_phase=self.active_phase,
            can_elicit=can_elicit,
        )


def resolve(docroot: Docroot, target: Target) -> str | Call:
    """The text of help, a document or a skill member, or the call of a command or skill."""
    snapshot = docroot.snapshot()
    if target.kind == "help":
        if not target.path:
            return help_text.overview(snapshot)
        return help_text.describe(_command(snapshot, target.path)[0])
    if target.kind == "member":
        skill, member = map(clip, target.path)
        missing = _not_found(f"skill {skill} has no member {member}", suggest.member(snapshot, *target.path))
        return _read(docroot, snapshot.member(*target.path), missing)
    if target.kind == "document":
        missing = _not_found(f"no document {clip(target.path[0])}", suggest.document(snapshot, target.path[0]))
        return _read(docroot, snapshot.document(target.path[0]), missing)
    if target.kind == "skill":
        entrypoint, args = _skill(snapshot, target.path[0]), ()
    else:
        entrypoint, args = _command(snapshot, target.path)
    if target.help:
        return help_text.describe(entrypoint)
    return _call(docroot, snapshot, entrypoint, target.keywords, args, skill_file=target.skill_file)


def resolve_prompt(docroot: Docroot, line: str) -> str | Call:
    """The help text or the call a `guide` prompt line names (`_name`, `:name` or `;name`, then flags and args)."""
    route = address.parse_prompt(line)
    snapshot = docroot.snapshot()
    entrypoint, args = _command(snapshot, route.segments)
    valued = [name for name, (_, field) in entrypoint.forms.fields.items() if field.type.flag_takes_value]
    keywords, positional, wants_help = address.read_flags(route.tokens, entrypoint.listed("argrequired"), valued)
    if wants_help:
        return help_text.describe(entrypoint)
    return _call(docroot, snapshot, entrypoint, keywords, (*args, *positional))


def _read(docroot: Docroot, path: Path | None, missing: NotFoundError) -> str:
    """The text of a document or member; one that vanished or cannot be served is an error, never a crash."""
    if path is None:
        raise missing
    try:
        return docroot.read_text(path)
    except files.Gone:
        raise missing from None
    except files.Refused as error:
        raise AuthoringError([Problem(path=path.relative_to(docroot.root).as_posix(), message=f"file {error}")]) from None


def _call(docroot: Docroot, snapshot: Snapshot, entrypoint: Entrypoint, keywords: Keywords, args: tuple[str, ...], skill_file: bool = False) -> Call:
    if entrypoint.problems:
        raise AuthoringError(list(entrypoint.problems))
    return Call(snapshot, entrypoint, keywords, tuple(args), docroot.active_phase(), skill_file)


def _command(snapshot: Snapshot, segments: tuple[str, ...]) -> tuple[Entrypoint, tuple[str, ...]]:
    found = snapshot.find_command(segments)
    if found is None:
        raise _not_found(f"no command {clip('/'.join(segments))}", suggest.command(snapshot, segments))
    return found


def _skill(snapshot: Snapshot, name: str) -> Entrypoint:
    skill = snapshot.skill(name)
    if skill is None:
        raise _not_found(f"no skill {clip(name)}", suggest.skill(snapshot, name))
    return skill


def _not_found(what: str, suggestion: str | None) -> NotFoundError:
    return NotFoundError(f"{what}; did you mean {suggestion}?" if suggestion else f"{what}; {HELP_HINT}")
