"""Answer `completion/complete` for command prompt arguments and template keywords with field choices."""

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp_types import PromptReference, ResourceTemplateReference

from guide import address
from guide.docroot.folder import Docroot
from guide.errors import GuideError
from guide.forms.fields import Field
from guide.forms.resolve import offered_choices
from guide.forms.text import show
from guide.protocol import ROUTE_PROMPT
from guide.server import work
from guide.server.errors import one_line

log = logging.getLogger("guide")


def completer(docroot: Docroot) -> Callable[..., Awaitable[list[str]]]:
    """A completion handler bound to a docroot; the answer is found in a worker thread.

    Completion is a convenience: if it fails unexpectedly the client gets no
    suggestions (the log gets one line), never the exception's text.
    """

    async def complete(ref: Any, argument: Any, context: Any = None) -> list[str]:
        try:
            return await work.off_loop(_complete, docroot, ref, argument)
        except Exception as error:
            log.error("unexpected error while completing %s: %s", getattr(argument, "name", "?"), one_line(error))
            return []

    return complete


def _complete(docroot: Docroot, ref: Any, argument: Any) -> list[str]:
    built = docroot.current()
    if isinstance(ref, PromptReference):
        if ref.name == ROUTE_PROMPT:
            return _routes(built.names("command"), argument.value or "")
        entrypoint = built.command(address.command_of_prompt(ref.name))
    elif isinstance(ref, ResourceTemplateReference):
        try:
            target = address.parse(address.address_of_template(ref.uri))
        except GuideError:
            return []
        entrypoint = built.skill(target.path[0]) if target.kind == "skill" else built.command("/".join(target.path))
    else:
        return []
    if entrypoint is None:
        return []
    located = entrypoint.forms.fields.get(argument.name)
    if located is None:
        return []
    return [choice for choice in _choices(located[1], docroot.active_phase(built)) if choice.startswith(argument.value or "")]


def _choices(field: Field, active_phase: str | None) -> list[str]:
    choices = offered_choices(field, active_phase)
    return [show(choice) for choice in choices] if choices is not None else list(field.type.words)


def _routes(commands: list[str], typed: str) -> list[str]:
    routes = [address.prompt_route(name, typed) for name in commands]
    return [route for route in routes if route.startswith(typed or address.PROMPT_PREFIXES[0])]
