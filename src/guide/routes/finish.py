"""Finish a call: render the entrypoint with the values of a completed interaction, or raise its failure (C7.11, C9)."""

from collections.abc import Mapping
from typing import Any

from guide import render
from guide.docroot.folder import Docroot
from guide.forms.resolve import Fail, Render
from guide.routes import skill_file
from guide.routes.resolve import Call


def finish(docroot: Docroot, call: Call, outcome: Render | Fail) -> str:
    """The rendered text of a completed interaction; a failed one raises the error it ends with.

    A skill read as `skill://<name>/SKILL.md` is served with its frontmatter, and
    when only forms could give its values, as a `SKILL.md` saying what it needs (C3).
    """
    if isinstance(outcome, Fail):
        if call.skill_file and outcome.kind == "missing":
            return skill_file.needs(call.entrypoint, outcome)
        raise outcome.error
    entrypoint = call.entrypoint
    snapshot = call.snapshot
    config = snapshot.config

    def make() -> str:
        context = render.context(
            kind=entrypoint.kind,
            name=entrypoint.name,
            kwargs=outcome.kwargs,
            args=outcome.args,
            defaulted=outcome.defaulted,
            phase=call.active_phase,
            phases=config.phases,
            flags=config.flags,
        )
        body = render.render(entrypoint.body, context, snapshot.partial_bodies)
        return skill_file.served(entrypoint, body) if call.skill_file else body

    key = (entrypoint.uri, _frozen(outcome.kwargs), outcome.args, outcome.defaulted, call.active_phase, call.skill_file)
    return docroot.renders.get(snapshot, key, make)


def _frozen(values: Mapping[str, Any]) -> tuple:
    """Values as a hashable key that tells `1`, `1.0` and `true` apart."""
    return tuple(sorted((name, type(value).__name__, tuple(value) if isinstance(value, list) else value) for name, value in values.items()))
