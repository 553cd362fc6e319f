"""A form elicitation shown in the terminal: a prompt per field, checked as Guide checks it.

Enter takes the default, Ctrl-D cancels the form, Ctrl-C ends `guide try`.
"""

import datetime
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape as escape_markup

from guide.cli.inputs import Reply
from guide.errors import GuideError
from guide.forms.described import describe
from guide.forms.fields import Field, choice_options, declare_field
from guide.forms.values import Invalid, normalise_answer, normalise_text, problems
from guide.text import for_terminal, show

ACTIONS = {"a": "accept", "accept": "accept", "d": "decline", "decline": "decline", "c": "cancel", "cancel": "cancel"}


class TerminalForm:
    """Answers each form by asking the person at the terminal, field by field."""

    def __init__(self, console: Console):
        self.console = console

    def __call__(self, form: str, message: str, schema: dict[str, Any]) -> Reply:
        """Show one form and return the answer: field values (accept), "decline" or "cancel"."""
        self.console.print()
        self.console.print(f"[bold cyan]Form {escape(form)}[/] [dim](Ctrl-D cancels it)[/]")
        self.console.print(escape(message))
        try:
            action = self._action()
            if action != "accept":
                return action
            required = set(schema.get("required", ()))
            values = {}
            for name, field_schema in schema.get("properties", {}).items():
                value = self._field(form, name, field_schema, name in required)
                if value is not None:
                    values[name] = value
            return values
        except _Cancelled:
            self.console.print("[yellow]Form cancelled.[/]")
            return "cancel"

    def _input(self, prompt: str) -> str:
        try:
            return self.console.input(for_terminal(prompt), markup=False, emoji=False)
        except EOFError:
            if sys.stdin.isatty():
                self.console.print()
                raise _Cancelled() from None  # Ctrl-D at the terminal
            raise GuideError("no terminal input to answer the form; pass --answers FILE.json") from None

    def _action(self) -> str:
        while True:
            typed = self._input("Accept, decline or cancel this form? (a/d/c, Enter accepts): ").strip().lower()
            if not typed:
                return "accept"
            if typed in ACTIONS:
                return ACTIONS[typed]
            self.console.print("[red]Type a, d or c.[/]")

    def _field(self, form: str, name: str, schema: dict[str, Any], required: bool) -> Any:
        field, issues = declare_field(name, schema, allow_source=False, phases=())
        label = schema.get("title") or name
        self.console.print(f"\n[bold]{escape(label)}[/]{' [red]*[/]' if required else ''}")
        if schema.get("description"):
            self.console.print(f"[dim]{escape(schema['description'])}[/]")
        need = describe(field, form, required, field.choices) if field is not None else None
        if need is not None and need.hint():
            self.console.print(f"[dim]{escape(need.hint())}[/]")  # worded as the App page and an agent's refusal word it
        choices = choice_options(schema)
        for number, (value, title) in enumerate(choices, start=1):
            self.console.print(f"  {number}. {escape(title)}" + (f" [dim]({escape(value)})[/]" if title != value else ""))
        while True:
            typed = self._input(self._prompt(field, schema, choices)).strip()
            try:
                return self._read(field, schema, typed, choices, required)
            except _Refused as error:  # only a declared field refuses a value
                accepts = need.accepted(titled=True) if need is not None else ""
                self.console.print(f"[red]{escape(str(error))}; {escape(accepts)}[/]")
            except Invalid as error:
                self.console.print(f"[red]{escape(str(error))}[/]")

    def _prompt(self, field: Field | None, schema: dict[str, Any], choices: list[tuple[str, str]]) -> str:
        hint = _hint(field, choices)
        default = schema.get("default")
        shown = "" if default is None else _show(default, choices)
        parts = [part for part in (hint, f"default {shown}" if shown else "") if part]
        return f"> {'(' + '; '.join(parts) + ') ' if parts else ''}"

    def _read(self, field: Field | None, schema: dict[str, Any], typed: str, choices: list[tuple[str, str]], required: bool) -> Any:
        if not typed:
            if "default" in schema:
                return schema["default"]
            if required:
                raise Invalid("this field is required")
            return None
        if field is None:
            return typed
        if choices and field.type.many:
            value = normalise_answer(field, [_pick(part.strip(), choices) for part in typed.split(",")])
        elif choices:
            value = normalise_text(field, [_pick(typed, choices)])
        else:
            try:
                value = normalise_text(field, [_as_typed(field, typed)])
            except Invalid as error:
                raise _Refused(str(error)) from None
        found = problems(field, value)
        if found:
            raise _Refused(found[0])
        return value


def escape(text: str) -> str:
    """Docroot text as the form shows it: neither Rich markup nor a terminal's control sequences act on it."""
    return escape_markup(for_terminal(text))


class _Cancelled(Exception):
    """The person cancelled the form (Ctrl-D)."""


class _Refused(Invalid):
    """A value the field refuses (not its type, or breaking a constraint): shown with what the field accepts."""


def _as_typed(field: Field, typed: str) -> str:
    """The text a person typed, read as the field's type reads keywords (`y` is true; a local time gets its offset)."""
    typed = field.type.terminal_words.get(typed.lower(), typed)
    if "format" in field.bounds and field.bounds["format"].local_time and len(typed) > len("YYYY-MM-DD"):
        try:
            moment = datetime.datetime.fromisoformat(typed.upper())
        except ValueError:
            return typed  # the format check says what is wrong
        return (moment if moment.tzinfo else moment.astimezone()).isoformat()
    return typed


def _hint(field: Field | None, choices: list[tuple[str, str]]) -> str:
    if field is not None and "format" in field.bounds:
        return field.bounds["format"].hint
    if field is not None and field.type.terminal_hint:
        return field.type.terminal_hint
    if choices:
        return "numbers, comma-separated" if field is not None and field.type.many else "number"
    return ""


def _pick(typed: str, choices: list[tuple[str, str]]) -> str:
    if typed.isdigit() and 1 <= int(typed) <= len(choices):
        return choices[int(typed) - 1][0]
    if typed in (value for value, _ in choices):
        return typed
    raise Invalid(f"{typed!r} is not a choice; type a number from 1 to {len(choices)}")


def _show(value: Any, choices: list[tuple[str, str]]) -> str:
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, list):
        return ",".join(str(next((i for i, (v, _) in enumerate(choices, 1) if v == item), item)) for item in value)
    number = next((i for i, (v, _) in enumerate(choices, 1) if v == value), None)
    return str(number) if number else show(value)
