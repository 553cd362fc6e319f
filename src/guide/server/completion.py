"""Answer `completion/complete` for command prompt arguments and template keywords with field choices."""

from collections.abc import Callable
from typing import Any

from mcp_types import PromptReference, ResourceTemplateReference

from guide.docroot.index import Docroot
from guide.forms.fields import Field
from guide.forms.resolve import offered_choices


def completer(docroot: Docroot) -> Callable[..., list[str]]:
    """A completion handler bound to a docroot."""

    def complete(ref: Any, argument: Any, context: Any = None) -> list[str]:
        snapshot = docroot.snapshot()
        if isinstance(ref, PromptReference):
            if ref.name == "guide":
                return _routes([command.name for command in snapshot.commands()], argument.value)
            entrypoint = snapshot.command(ref.name.replace(".", "/"))
        elif isinstance(ref, ResourceTemplateReference):
            address = ref.uri.split("{", 1)[0]
            entrypoint = snapshot.skill(address[len("guide://$"):]) if address.startswith("guide://$") else snapshot.command(address[len("guide://_"):])
        else:
            return []
        if entrypoint is None:
            return []
        located = entrypoint.forms.fields.get(argument.name)
        if located is None:
            return []
        return [choice for choice in _choices(located[1], snapshot.active_phase()) if choice.startswith(argument.value or "")]

    return complete


def _choices(field: Field, active_phase: str | None) -> list[str]:
    if field.type == "boolean":
        return ["true", "false"]
    choices = offered_choices(field, active_phase)
    return [str(choice) for choice in choices or ()]


def _routes(commands: list[str], typed: str) -> list[str]:
    prefix = typed[:1] if typed[:1] in ("_", ":", ";") else "_"
    return [f"{prefix}{name}" for name in commands if f"{prefix}{name}".startswith(typed or prefix)]
