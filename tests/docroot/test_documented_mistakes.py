"""Issue 21 item 7: each mistake docs/authoring.md shows (issues 21, 19 finding 1, 25 findings 1 and 5) is what `guide check` prints.

The section "Mistakes in bodies, secrets, prompt names and sizes" shows a
body and `guide check` lines. Every line of each `text` block must be printed
by `guide check` of the docroots `_docroots` gives for it (the `markdown` block
is the body of the first one), so the docs cannot drift from the messages.
"""

import re
from pathlib import Path

import pytest
from support.files import write_files

from guide.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
SECTION = "## Mistakes in bodies, secrets, prompt names and sizes"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)
HEAD = """---
description: Fix an issue.
elicitation:
  target:
    message: Which issue?
    schema:
      type: object
      properties:
        issue: {type: string}
      required: [issue]
---
"""


def _blocks() -> list[tuple[str, str]]:
    text = DOC.read_text()
    start = text.index(SECTION)
    section = text[start: text.index("\n## ", start + len(SECTION))]
    return [(match.group(1), match.group(2)) for match in BLOCK.finditer(section)]


def _filler(lines: dict[int, str], last: int) -> str:
    first = HEAD.count("\n") + 1
    return "".join(lines.get(number, f"Step {number}.") + "\n" for number in range(first, last + 1))


def _docroots() -> list[list[dict[str, str]]]:
    """For each `text` block of the section in order, the docroots whose checks print its lines."""
    [body] = [text for kind, text in _blocks() if kind == "markdown"]
    bomb = {f"_partials/p{level}.md": f"{{{{>p{level + 1}}}}}" * 10 for level in range(7)}
    unclosed = _filler({30: "{{#kwargs.verbose}}", 32: "{{#kwargs.issue}}#{{kwargs.issue}}{{/kwargs.issue}}"}, 36)
    opened = "".join(f"{{{{#kwargs.a{number}}}}}\n" for number in range(70))
    closed = "".join(f"{{{{/kwargs.a{number}}}}}\n" for number in reversed(range(70)))
    secret = HEAD.replace("        issue: {type: string}\n", "        issue: {type: string}\n        api_key: {type: string}\n")
    return [
        [{"_commands/fix.md": HEAD + body}],
        [{"_commands/fix.md": HEAD + unclosed}, {"_commands/fix.md": HEAD + _filler({16: "{{#kwargs.verbose}}", 17: "{{/kwargs.verbos}}"}, 18)}],
        [{"_commands/fix.md": secret}],
        [{"_commands/a.b.md": "A.B\n", "_commands/a/b.md": "A/B\n"}],
        [{"_commands/guide.md": "G\n"}],
        [{"_commands/bomb.md": "---\ndescription: d\n---\nIntro.\n\n{{>p0}}\n", **bomb, "_partials/p7.md": "0123456789"}],
        [{"_commands/deep.md": "---\ndescription: d\n---\n" + opened + "x\n" + closed}],
        [{"_commands/report.md": "---\ndescription: d\n---\n# Report\n\n- Findings:\n" + " " * 2000 + "{{>findings}}\n", "_partials/findings.md": "- item\n" * 1000}],
    ]


def _outputs() -> list[str]:
    return [text for kind, text in _blocks() if kind == "text"]


def test_21_7_each_documented_example_has_its_docroot():
    assert len(_outputs()) == len(_docroots())


@pytest.mark.parametrize("number", range(8))
def test_21_7_each_documented_check_line_is_what_check_prints(tmp_path, capsys, number):
    printed = []
    for index, files in enumerate(_docroots()[number]):
        main(["check", str(write_files(tmp_path / str(index), files))])
        printed += capsys.readouterr().out.splitlines()
    for line in _outputs()[number].splitlines():
        assert line in printed, f"{line}\nnot in:\n" + "\n".join(printed)
