"""Mustache rendering of entrypoints and the template context (C9).

Rendering is standard Mustache: `{{x}}` escapes &, <, > and " as the spec
says, and `{{{x}}}` or `{{&x}}` inserts a value verbatim. Parsed templates are
cached by the engine; partials come only from the docroot snapshot, never from
disk during a render, and values are never read as templates.
"""

import re
from collections.abc import Iterable, Mapping
from typing import Any

import mstache

from guide.forms.text import template_text

_LOCATION = re.compile(r"\s*at line (\d+) column \d+")


def template_problem(body: str) -> tuple[int, str] | None:
    """The line (within the body) and message of a Mustache syntax error, if the body has one."""
    try:
        # A throwaway cache: checking every file must not evict the templates being served.
        mstache.tokenize(body.encode(), strict=True, cache={})
    except mstache.TokenException as error:
        found = _LOCATION.search(str(error))
        # The engine quotes the tag with its line ending spelled out as a backslash and an n.
        message = _LOCATION.sub("", str(error)).replace("\\n", "").replace("\n", " ")
        return (int(found.group(1)) if found else 1), f"template error: {message}"
    return None


def render(body: str, context: Mapping[str, Any], partials: Mapping[str, str]) -> str:
    """Render a template with standard Mustache; `{{>name}}` reads from `partials`."""
    return mstache.render(body, context, resolver=partials.get, stringify=_stringify, strict=True)


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
