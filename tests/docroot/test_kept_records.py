"""What a build keeps of each file after a listing: the frontmatter once, parsed, and no text (issue 28, item 8).

A listing needs each file's frontmatter (names, descriptions, declared forms)
and nothing of its body; a parse not yet saved to the store is held as the
parsed frontmatter the build uses, never also as the JSON text it will be
written as. The tests walk everything a `Docroot` holds and look at its strings,
so they say what is kept, not how much memory a busy machine reports.
"""

import gc
import types
from pathlib import Path

import pytest
from support.files import write_files

from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store

COMMANDS = 12
BODY_WORD = "BODYTEXT"


def command(number: int) -> str:
    return (
        f"---\ndescription: Command number {number}.\nelicitation:\n  ask:\n    message: Which one?\n"
        f"    schema:\n      type: object\n      properties:\n        choice: {{type: string, enum: [a{number}, b{number}]}}\n"
        f"      required: [choice]\n---\n# {BODY_WORD} {number}\n\n{BODY_WORD} line of command {number}: {{{{kwargs.choice}}}}\n"
    )


@pytest.fixture
def listed(tmp_path: Path) -> Docroot:
    """A docroot of commands whose listing was made (every description and every entrypoint's forms), parses not saved yet."""
    root = write_files(tmp_path / "docroot", {f"_commands/c{number:02}.md": command(number) for number in range(COMMANDS)})
    docroot = Docroot(root, store=Store(tmp_path / "cache"))
    docroot.parses.load_after = 0
    built = docroot.build()
    assert len(built.descriptions("command")) == COMMANDS
    assert all(entrypoint.forms.forms for entrypoint in built.every("command"))
    assert docroot.parses.parsed == COMMANDS  # parsed here, held until the next save
    return docroot


def kept_strings(root: object) -> list[str]:
    """Every string reachable from `root` through the objects it holds (code, classes and modules are not followed)."""
    seen: set[int] = set()
    stack, found = [root], []
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, str):
            found.append(value)
        elif not isinstance(value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType)):
            stack.extend(gc.get_referents(value))
    return found


def test_28_a_listing_keeps_no_text_of_a_file_body(listed):
    assert not [text for text in kept_strings(listed) if BODY_WORD in text]


def test_28_a_parse_not_yet_saved_is_held_parsed_not_also_as_json(listed):
    descriptions = [text for text in kept_strings(listed) if "Command number" in text]
    assert sorted(descriptions) == sorted(f"Command number {number}." for number in range(COMMANDS))  # each once, as parsed
    listed.keep_parses()
    assert listed.parses.reused == 0
    again = Docroot(listed.root, store=listed.store)
    again.parses.load_after = 0
    assert [description for _, description in again.build().descriptions("command")] == [f"Command number {n}." for n in range(COMMANDS)]
    assert again.parses.parsed == 0  # what was held parsed was written whole
