"""The choices a field offers in one read, and the schema a client receives for a form (C7.9, C10, C5 sources).

A declared `enum` offers itself; `workflow-phases` offers the enabled phases
without the active one; a `list:` offers guide.yaml's list; a live source
(`git-*`, `files:`) offers what the server read for this read (`Request.live`),
so the step checks answers and keywords against the list as it is now.
"""

from collections.abc import Collection, Mapping
from typing import Any

from guide.enums import titled_enum, titled_multi_enum, untitled_enum, untitled_multi_enum
from guide.forms.declare import Form
from guide.forms.fields import Field
from guide.forms.sources import WORKFLOW_PHASES, Live, Unreadable

NOTHING_LIVE: Mapping[str, Live] = {}


def offered_choices(field: Field, active_phase: str | None, live: Mapping[str, Live] = NOTHING_LIVE) -> tuple[Any, ...] | None:
    """The choices a client is offered: a workflow-phase field leaves out the active phase (C10); a live source gives what was read (none if unreadable)."""
    if field.live:
        found = live.get(field.name)
        return found if isinstance(found, tuple) else ()
    if field.source is not None and field.source.kind == WORKFLOW_PHASES and field.choices is not None:
        return tuple(choice for choice in field.choices if choice != active_phase)
    return field.choices


def checked_choices(field: Field, live: Mapping[str, Live] = NOTHING_LIVE) -> tuple[Any, ...] | None:
    """The choices a keyword or arg is checked against: all declared ones (the active phase included), or what a live source read."""
    return offered_choices(field, None, live) if field.live else field.choices


def unreadable(field: Field, live: Mapping[str, Live]) -> str | None:
    """Why a live source's choices cannot be offered in this read, if they cannot (None for any other field)."""
    if not field.live:
        return None
    found = live.get(field.name)
    if isinstance(found, Unreadable):
        return found.message
    if not found:
        return f"source {field.source} gave no choices"
    return None


def delivered_schema(form: Form, active_phase: str | None, supplied: Collection[str] = (), live: Mapping[str, Live] = NOTHING_LIVE) -> dict[str, Any]:
    """The schema a client receives (C7.9): as declared, with `source` fields given their choices,
    and without the fields keywords or args already supply."""
    supplied = [name for name in supplied if form.field(name) is not None]
    if not supplied and not any(field.source for field in form.fields):
        return dict(form.schema)
    properties = {}
    for field in form.fields:
        if field.name in supplied:
            continue
        properties[field.name] = form.schema["properties"][field.name]
        if field.source:
            properties[field.name] = _sourced(field, offered_choices(field, active_phase, live) or ())
    schema = {**form.schema, "properties": properties}
    if "required" in form.schema:
        schema["required"] = [name for name in form.schema["required"] if name not in supplied]
    return schema


def _sourced(field: Field, offered: tuple[Any, ...]) -> dict[str, Any]:
    """A sourced field's schema: its choices as an `enum` (titled: `oneOf`/`anyOf`), its other keys kept, `source` removed."""
    rest = {key: value for key, value in field.schema.items() if key not in ("source", "type", "items")}
    default = rest.get("default")
    if default is not None and not all(item in offered for item in (default if isinstance(default, list) else [default])):
        rest.pop("default")  # a default equal to the active phase is not on offer
    titles = dict(field.options()) if field.titles is not None else None
    if titles is not None:
        options = [(value, titles[value]) for value in offered]
        choice: Any = titled_multi_enum(options) if field.type.many else titled_enum(options)
    else:
        choice = untitled_multi_enum(offered) if field.type.many else untitled_enum(offered)
    return {**choice, **rest}
