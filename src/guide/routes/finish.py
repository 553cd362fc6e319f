"""Finish a read: render an entrypoint with the values of a completed interaction (or raise its failure), or read a document (C7.11, C9)."""

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from guide import render
from guide.docroot import files
from guide.docroot.built import Built
from guide.docroot.folder import Docroot
from guide.docroot.frontmatter import Parsed
from guide.docroot.memo import MEGA, UNBUILT, Kept, Once
from guide.errors import AuthoringError, Problem
from guide.forms.step import Fail, Render
from guide.routes import skill_file
from guide.routes.lookup import Call, Document

RENDERS: Kept[str] = Kept("rendered texts", 1024, 8 * MEGA)
"""The same call with the same values it can see renders the same text until a file changes: eight renders at the output cap."""
SIGHTS: "Once[Sight]" = Once("what each entrypoint's templates can print of a call, by file")


@dataclass(frozen=True)
class Sight:
    """What an entrypoint's templates (its body and every partial it reaches) can print of a call: which keywords, and its args."""

    keywords: frozenset[str] | None
    """The keywords looked up (`kwargs.NAME`); None: any of them (`kwargs` itself, or `.` outside every section)."""
    args: bool
    phase: bool = True
    """Whether a template can print the workflow phase (`workflow.*`): if not, a read need not look at the project's state file."""

    def sees(self, keyword: str) -> bool:
        """Whether a template can print this keyword's value."""
        return self.keywords is None or keyword in self.keywords

    def covers(self, call: Call) -> bool:
        """Whether every keyword and arg a call brings can be printed: only then is its read a key worth keeping."""
        fields = call.entrypoint.arg_fields
        args = self.args or (len(call.args) <= len(fields) and all(self.sees(name) for name in fields[:len(call.args)]))
        return args and all(self.sees(name) for name in call.keywords)


def sight(call: Call) -> Sight:
    """What the templates of a call's entrypoint can print of it (worked out once per snapshot)."""
    built, path = call.built, call.entrypoint.path
    return built.value(SIGHTS, lambda: _sight(built, path), path)


def keeps(call: Call) -> bool:
    """Whether the text of a read of `call` may be kept under the read itself: every keyword and arg it brings is printed.

    Only answers from what is built (False when the call's sight is not worked out yet): it may run on the event loop.
    """
    seen = call.built.made(SIGHTS, call.entrypoint.path)
    return seen is not UNBUILT and seen.covers(call)


def sees_phase(call: Call) -> bool:
    """Whether a read of `call` may print the workflow phase; True while its sight is not worked out (answered on the event loop)."""
    seen = call.built.made(SIGHTS, call.entrypoint.path)
    return seen is UNBUILT or seen.phase


def _sight(built: Built, path: str) -> Sight:
    facts = built.template(path)
    every = [facts, *(built.template(built.partials[name]) for name in built.partials_reached(name for name, _ in facts.partials))]
    if any(found.wide for found in every):
        return Sight(None, True)
    keywords = {label.split(".")[1] for found in every for label, _ in found.references if label.startswith(render.FIELD_ROOT)}
    return Sight(frozenset(keywords), any("args" in found.roots for found in every), any(render.PHASE_ROOT in found.roots for found in every))


def finish(call: Call, outcome: Render | Fail, active_phase: str | None, *, max_output: int = render.MAX_OUTPUT) -> str:
    """The rendered text of a completed interaction; a failed one raises the error it ends with.

    The render stops at `max_output` characters, its work included (`guide.render.render`).

    A skill read as `skill://<name>/SKILL.md` is served with its frontmatter, and
    when only forms could give its values, as a `SKILL.md` saying what it needs (C3).
    """
    found = rendered_before(call, outcome, active_phase)
    if found is not UNBUILT:
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
        opened=outcome.opened,
    )
    parsed = built.parsed(entrypoint.path)
    body = render.render(
        parsed.body if isinstance(parsed, Parsed) else "", context, built.partial_body,
        name=entrypoint.uri, max_output=max_output, indentation=built.indentation(entrypoint.path).cost,
    )
    text = skill_file.served(entrypoint, body) if call.skill_file else body
    return built.remember(RENDERS, _key(call, outcome, active_phase, sight(call)), text)


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


def rendered_before(call: Call, outcome: Render | Fail, active_phase: str | None) -> Any:
    """The rendered text if it was rendered before in this snapshot (`UNBUILT` if not); a failed outcome raises."""
    if isinstance(outcome, Fail):
        if call.skill_file and outcome.kind == "missing":
            return skill_file.needs(call.entrypoint, outcome)
        raise outcome.error
    seen = call.built.made(SIGHTS, call.entrypoint.path)  # never worked out here: this may run on the event loop
    return UNBUILT if seen is UNBUILT else call.built.recall(RENDERS, _key(call, outcome, active_phase, seen))


def _key(call: Call, outcome: Render, active_phase: str | None, seen: Sight) -> Hashable:
    """The values a render's text depends on: a keyword or args no template prints make no new key."""
    kwargs = {name: value for name, value in outcome.kwargs.items() if seen.sees(name)}
    return (call.entrypoint.uri, _frozen(kwargs), outcome.args if seen.args else (), outcome.defaulted, outcome.opened, active_phase, call.skill_file)


def _frozen(values: Mapping[str, Any]) -> tuple:
    """Values as a hashable key that tells `1`, `1.0` and `true` apart."""
    return tuple(sorted((name, type(value).__name__, tuple(value) if isinstance(value, list) else value) for name, value in values.items()))
