"""Finish a read: render an entrypoint with the values of a completed interaction (or raise its failure), or read a document (C7.11, C9)."""

from collections.abc import Hashable, Mapping
from typing import Any

from guide import render
from guide.docroot import files
from guide.docroot.built import MISSING
from guide.docroot.folder import Docroot
from guide.docroot.frontmatter import Parsed
from guide.errors import AuthoringError, Problem
from guide.forms.resolve import Fail, Render
from guide.routes import skill_file
from guide.routes.resolve import Call, Document

RENDERS = "renders"
"""The build's memo of rendered texts: the same call with the same values renders the same text until a file changes."""


def finish(call: Call, outcome: Render | Fail, active_phase: str | None, *, max_output: int = render.MAX_OUTPUT) -> str:
    """The rendered text of a completed interaction; a failed one raises the error it ends with.

    The render stops at `max_output` characters, its work included (`guide.render.render`).

    A skill read as `skill://<name>/SKILL.md` is served with its frontmatter, and
    when only forms could give its values, as a `SKILL.md` saying what it needs (C3).
    """
    found = finished(call, outcome, active_phase)
    if found is not MISSING:
        return found
    entrypoint, built = call.entrypoint, call.built
    context = render.context(
        kind=entrypoint.kind,
        name=entrypoint.name,
        kwargs=outcome.kwargs,
        args=outcome.args,
        defaulted=outcome.defaulted,
        phase=active_phase,
        phases=built.config.phases,
        flags=built.config.flags,
    )
    parsed = built.parsed(entrypoint.path)
    body = render.render(parsed.body if isinstance(parsed, Parsed) else "", context, built.partial_body, name=entrypoint.uri, max_output=max_output)
    text = skill_file.served(entrypoint, body) if call.skill_file else body
    return built.remember(RENDERS, _key(call, outcome, active_phase), text)


def document_text(docroot: Docroot, document: Document) -> str:
    """The text of a document or member; one that vanished or cannot be served is an error, never a crash.

    A skill member (and a `.txt`, `.json` or YAML document) is read now and served as written. A `.md` or
    `.mustache` document is served without its frontmatter block (C2): its body is the one its build parsed.
    """
    if document.built is None:
        return _read(docroot, document)
    parsed = document.built.parsed(document.path)
    if isinstance(parsed, Parsed):
        return parsed.body
    if parsed.line is None:  # the file could not be read: reading it again says why (one that is gone is not found)
        _read(docroot, document)
    raise AuthoringError([Problem(path=document.path, line=parsed.line, message=str(parsed))])


def _read(docroot: Docroot, document: Document) -> str:
    try:
        return docroot.read_text(document.path)
    except files.Gone:
        raise document.missing from None
    except files.Refused as error:
        raise AuthoringError([Problem(path=document.path, message=f"file {error}")]) from None


def finished(call: Call, outcome: Render | Fail, active_phase: str | None) -> Any:
    """The rendered text if it was rendered before in this snapshot (`MISSING` if not); a failed outcome raises."""
    if isinstance(outcome, Fail):
        if call.skill_file and outcome.kind == "missing":
            return skill_file.needs(call.entrypoint, outcome)
        raise outcome.error
    return call.built.recall(RENDERS, _key(call, outcome, active_phase))


def _key(call: Call, outcome: Render, active_phase: str | None) -> Hashable:
    return (call.entrypoint.uri, _frozen(outcome.kwargs), outcome.args, outcome.defaulted, active_phase, call.skill_file)


def _frozen(values: Mapping[str, Any]) -> tuple:
    """Values as a hashable key that tells `1`, `1.0` and `true` apart."""
    return tuple(sorted((name, type(value).__name__, tuple(value) if isinstance(value, list) else value) for name, value in values.items()))
