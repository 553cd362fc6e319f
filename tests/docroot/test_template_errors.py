"""Issue 21 item 3 (C5): a Mustache syntax error names the tag and the file line where it is.

An unclosed section is reported at the line it was opened on, a stray closing
tag at its own line, both as lines of the file (frontmatter counted).
"""

import json
from pathlib import Path

import mstache
import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.render import inspect

TESTS = Path(__file__).resolve().parents[1]
FRONTMATTER = "---\ndescription: Report on an issue.\nelicitation:\n  issue:\n    message: Which issue?\n    schema:\n      type: object\n" \
    "      properties:\n        issue: {type: string}\n        verbose: {type: boolean}\n---\n"


def errors(root: Path, rel: str) -> list[tuple[int | None, str]]:
    return [(problem.line, problem.message) for problem in lint(Docroot(root).build()).problems if problem.path == rel]


def body_from_line(first: int, lines: dict[int, str], last: int) -> str:
    """A body whose file lines `first`..`last` hold `lines` (by file line) and filler text elsewhere."""
    return "".join(lines.get(number, f"Line {number}.") + "\n" for number in range(first, last + 1))


def test_21_3_unclosed_section_names_the_line_it_opened(tmp_path):
    # The case: opened on line 30, a later section closed properly, the file ending on line 36.
    first = FRONTMATTER.count("\n") + 1
    body = body_from_line(first, {30: "{{#kwargs.verbose}}", 32: "{{#kwargs.issue}}", 33: "Issue {{kwargs.issue}}.", 34: "{{/kwargs.issue}}"}, 36)
    root = write_files(tmp_path, {"_commands/report.md": FRONTMATTER + body})
    [(line, message)] = errors(root, "_commands/report.md")
    assert line == 30
    assert message == (
        "template error: Unclosed section `{{#kwargs.verbose}}`: it is opened here and never closed; end it with `{{/kwargs.verbose}}`"
    )


def test_21_3_the_innermost_unclosed_section_is_the_one_named(tmp_path):
    root = write_files(tmp_path, {"_commands/nested.md": "---\ndescription: d\n---\n{{#a}}\nA\n{{^b}}\nnot B\n"})
    assert errors(root, "_commands/nested.md") == [(6, "template error: Unclosed section `{{^b}}`: it is opened here and never closed; end it with `{{/b}}`")]


def test_21_3_stray_closing_tag_names_its_own_line(tmp_path):
    root = write_files(tmp_path, {
        "_commands/stray.md": "---\ndescription: d\n---\nIntro.\n{{#kwargs.verbose}}\nMore.\n{{/kwargs.verbos}}\n",
        "_partials/lone.md": "Text.\n\n{{/done}}\n",
    })
    assert errors(root, "_commands/stray.md") == [
        (7, "template error: Unopened section `{{/kwargs.verbos}}`: it closes no open section; the innermost open section is `{{#kwargs.verbose}}`")
    ]
    assert errors(root, "_partials/lone.md") == [(3, "template error: Unopened section `{{/done}}`: it closes no open section")]


def test_21_3_lines_follow_changed_delimiters(tmp_path):
    root = write_files(tmp_path, {"_commands/erb.md": "---\ndescription: d\n---\n{{=<% %>=}}\n<%#items%>\n<%.%>\n"})
    assert errors(root, "_commands/erb.md") == [(5, "template error: Unclosed section `<%#items%>`: it is opened here and never closed; end it with `<%/items%>`")]


def test_21_3_check_json_gives_the_opening_line(tmp_path, capsys):
    root = write_files(tmp_path, {"_commands/report.md": "---\ndescription: d\n---\n\n\n{{#kwargs.verbose}}\n{{#x}}{{/x}}\nend\n"})
    assert main(["check", str(root), "--format", "json"]) == 1
    [error] = json.loads(capsys.readouterr().out)["errors"]
    assert (error["path"], error["line"]) == ("_commands/report.md", 6)
    assert "`{{#kwargs.verbose}}`" in error["message"]


def _spec_templates():
    for spec in sorted((TESTS / "data" / "mustache-spec").glob("*.json")):
        for case in json.loads(spec.read_text())["tests"]:
            for name, text in {"template": case["template"], **case.get("partials", {})}.items():
                yield pytest.param(text, id=f"{spec.stem}:{case['name']}:{name}")


@pytest.mark.parametrize("template", list(_spec_templates()))
def test_21_3_tags_are_read_as_the_engine_reads_them(template):
    """Each spec template's partial tags, found by Guide's own tag reader, are the ones the engine includes."""
    facts = inspect(template)
    if facts.problem is not None:
        return
    _, tokens, _ = mstache.tokenize(template.encode(), strict=True, cache={})
    engine = [token[3].decode() for token in tokens if token[:3] == (True, False, False)]
    assert [name for name, _ in facts.partials] == list(dict.fromkeys(engine))
    assert dict(facts.inclusions) == {name: engine.count(name) for name in engine}
