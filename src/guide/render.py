"""Mustache rendering of entrypoints and the template context (C9).

Rendering is standard Mustache: `{{x}}` escapes &, <, > and " as the spec
says, and `{{{x}}}` or `{{&x}}` inserts a value verbatim. Parsed templates are
cached by the engine; partials come only from the docroot snapshot, never from
disk during a render, and values are never read as templates.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import mstache

from guide.errors import GuideError
from guide.forms.text import template_text

_LOCATION = re.compile(r"\s*at line (\d+) column \d+")
PARTIAL_DEPTH = 64
"""How deeply partials may include partials while rendering; authoring checks refuse loops long before."""


@dataclass(frozen=True)
class TemplateFacts:
    """What a template body says about itself: its syntax error, if any, and the partials it includes."""

    problem: tuple[int, str] | None
    """The line (within the body) and message of a Mustache syntax error."""
    partials: tuple[tuple[str, int], ...]
    """Each `{{>name}}` tag: the partial's name and the line (within the body) it is first named on."""


class RenderLoop(GuideError):
    """Partials included each other deeper than `PARTIAL_DEPTH` while rendering."""


def inspect(body: str) -> TemplateFacts:
    """Tokenize a body once: its syntax error, or the partials it includes."""
    try:
        # A throwaway cache: checking every file must not evict the templates being served.
        _, tokens, _ = mstache.tokenize(body.encode(), strict=True, cache={})
    except mstache.TokenException as error:
        found = _LOCATION.search(str(error))
        # The engine quotes the tag with its line ending spelled out as a backslash and an n.
        message = _LOCATION.sub("", str(error)).replace("\\n", "").replace("\n", " ")
        return TemplateFacts(((int(found.group(1)) if found else 1), f"template error: {message}"), ())
    # A partial tag compiles to (True, False, False, name, indent, -1); see mstache.tokenize.
    names = dict.fromkeys(token[3].decode() for token in tokens if token[:3] == (True, False, False))
    return TemplateFacts(None, tuple((name, _line_of_partial(body, name)) for name in names))


def template_problem(body: str) -> tuple[int, str] | None:
    """The line (within the body) and message of a Mustache syntax error, if the body has one."""
    return inspect(body).problem


def render(body: str, context: Mapping[str, Any], partial: Callable[[str], str | None]) -> str:
    """Render a template with standard Mustache; `{{>name}}` renders `partial(name)` (nothing when it gives None)."""
    try:
        return mstache.render(body, context, resolver=partial, stringify=_stringify, strict=True, recursion_limit=PARTIAL_DEPTH)
    except mstache.TemplateRecursionError:
        raise RenderLoop(f"partials include each other more than {PARTIAL_DEPTH} levels deep; guide check names the loop") from None


def _line_of_partial(body: str, name: str) -> int:
    found = re.search(r"\{\{>\s*" + re.escape(name) + r"\s*\}\}", body)
    return body.count("\n", 0, found.start()) + 1 if found else 1


def context(
    *,
    kind: str,
    name: str,
    kwargs: Mapping[str, Any],
    args: Iterable[str],
    defaulted: Iterable[str],
    phase: str | None,
    phases: Iterable[str],
    flags: Mapping[str, Any],
) -> dict[str, Any]:
    """The template context of an entrypoint render."""
    return {
        "kwargs": dict(kwargs),
        "args": list(args),
        "elicitation": {"defaulted_forms": {form: True for form in defaulted}},
        kind: {"name": name},
        "workflow": {"phase": phase, "phases": list(phases)},
        "flags": dict(flags),
    }


def _stringify(value: Any, text: bool) -> bytes:
    return value if isinstance(value, bytes) else template_text(value).encode()
