"""`guide try`'s terminal form words a field's bounds as every channel does (`guide.forms.described.Need.hint`)."""

import io

from rich.console import Console

from guide.cli.terminal_form import TerminalForm
from guide.forms.described import describe
from guide.forms.fields import declare_field

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "[a-z]+"},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "color": {"type": "string", "enum": ["red", "blue"]},
    },
    "required": ["name"],
}


class Typed(Console):
    """A console whose person types the given lines, in turn."""

    def __init__(self, lines: list[str]):
        super().__init__(file=io.StringIO(), width=200, color_system=None)
        self.lines = iter(lines)

    def input(self, prompt="", **_options) -> str:
        self.print(prompt, end="")
        return next(self.lines)


def test_the_terminal_form_shows_each_fields_bounds_in_the_words_of_every_channel():
    console = Typed(["a", "A", "ok", "12", "3", "1"])
    assert TerminalForm(console)("f", "Tell me.", SCHEMA) == {"name": "ok", "count": 3, "color": "red"}
    shown = console.file.getvalue()
    name, _ = declare_field("name", SCHEMA["properties"]["name"], allow_source=False, phases=())
    worded = describe(name, "f", True, None).hint()
    assert worded == "Accepts a string of 1 to 20 characters matching [a-z]+."
    assert worded in shown and "Accepts an integer from 1 to 9." in shown
    assert "Accepts one of" not in shown  # choices without bounds are listed, not hinted
    assert "it accepts a string of 1 to 20 characters matching [a-z]+" in shown  # the refusal, the same words
