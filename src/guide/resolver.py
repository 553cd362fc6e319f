"""The one resolver behind every route: target -> entrypoint or content -> rendered text (C3, C9).

Routes only parse their input into a `Target`; this module finds what it names,
builds the core's `Request`, and renders a finished interaction. It never talks
to a client: the server edge drives the steps in between.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from guide import help as help_text
from guide import render
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.index import Snapshot
from guide.errors import AuthoringError, InputError, NotFoundError, StateError
from guide.forms.resolve import Fail, Render, Request
from guide.uri import Target

HELP_HINT = "guide://_help lists the commands and skills"


@dataclass(frozen=True)
class Call:
    """An entrypoint with the keywords and args one request brings to it."""

    entrypoint: Entrypoint
    keywords: Mapping[str, tuple[str, ...]]
    args: tuple[str, ...]


def content(snapshot: Snapshot, target: Target) -> str | None:
    """The text of a target that never asks for input (help, members, documents), else None."""
    if target.kind == "help":
        if not target.path:
            return help_text.overview(snapshot)
        return help_text.describe(find(snapshot, Target("command", target.path)).entrypoint)
    if target.kind in ("command", "skill") and target.help:
        return help_text.describe(find(snapshot, target).entrypoint)
    if target.kind == "member":
        path = snapshot.member(*target.path)
        if path is None:
            raise NotFoundError(f"skill {target.path[0]} has no member {target.path[1]}; {HELP_HINT}")
        return path.read_text(encoding="utf-8")
    if target.kind == "document":
        path = snapshot.document(target.path[0])
        if path is None:
            raise NotFoundError(f"no document {target.path[0]}; {HELP_HINT}")
        return path.read_text(encoding="utf-8")
    return None


def find(snapshot: Snapshot, target: Target) -> Call:
    """The entrypoint a command or skill target names, with its keywords and args."""
    if target.kind == "skill":
        skill = snapshot.skill(target.path[0])
        if skill is None:
            raise NotFoundError(f"no skill {target.path[0]}; {HELP_HINT}")
        return Call(skill, target.keywords, ())
    segments = target.path
    for length in range(len(segments), 0, -1):
        command = snapshot.command("/".join(segments[:length]))
        if command is not None:
            return Call(command, target.keywords, tuple(segments[length:]))
    raise NotFoundError(f"no command {'/'.join(segments)}; {HELP_HINT}")


def request(snapshot: Snapshot, call: Call, *, can_elicit: bool) -> Request:
    """The core's view of a call; raises `AuthoringError` if the entrypoint is declared wrongly."""
    entrypoint = call.entrypoint
    if entrypoint.problems:
        raise AuthoringError(list(entrypoint.problems))
    return Request(
        entrypoint=entrypoint.uri,
        forms=entrypoint.forms,
        keywords=call.keywords,
        args=call.args,
        arg_fields=entrypoint.listed("args"),
        active_phase=snapshot.active_phase(),
        can_elicit=can_elicit,
    )


def finish(snapshot: Snapshot, call: Call, outcome: Render | Fail, phase: str | None) -> str:
    """Render a finished interaction, or raise the error a failed one ends with (C7.11).

    `phase` is the active workflow phase the interaction was resolved with.
    """
    if isinstance(outcome, Fail):
        raise (StateError if outcome.kind == "state" else InputError)(outcome.message)
    entrypoint = call.entrypoint
    config = snapshot.config

    def make() -> str:
        context = render.context(
            kind=entrypoint.kind,
            name=entrypoint.name,
            kwargs=outcome.kwargs,
            args=outcome.args,
            defaulted=outcome.defaulted,
            phase=phase,
            phases=config.phases,
            flags=config.flags,
        )
        return render.render(entrypoint.body, context, snapshot.partial_bodies)

    key = (entrypoint.uri, _frozen(outcome.kwargs), outcome.args, outcome.defaulted, phase)
    return snapshot.remember(key, make)


def _frozen(values: Mapping[str, Any]) -> tuple:
    """Values as a hashable key that tells `1`, `1.0` and `true` apart."""
    return tuple(sorted((name, type(value).__name__, tuple(value) if isinstance(value, list) else value) for name, value in values.items()))


def prompt_target(segments: Sequence[str], keywords: Mapping[str, tuple[str, ...]], args: Sequence[str], wants_help: bool) -> Target:
    """The target of a prompt route: a command with its args appended to its path."""
    return Target("command", tuple(segments) + tuple(args), keywords, wants_help)
