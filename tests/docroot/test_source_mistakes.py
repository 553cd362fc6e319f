"""C5 sources: `guide check` knows every source and its argument, and reports each mistake with file and line.

One docroot holds a command per mistake (near misses included) and a skill that
reaches for the project; each test names its row.
"""

import json
from pathlib import Path

import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint


def command(field: str) -> str:
    """A command whose one form declares `field` (a YAML flow mapping) as property `x` (on line 9)."""
    return f"---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n        x: {field}\n---\nb\n"


MISTAKES = {
    "guide.yaml": "lists:\n  envs: [staging, production]\n  regions:\n    - {value: eu, title: Europe}\n  twice: [a, a]\n  broken: [{value: x, colour: red}]\n"
                  f"  long: [ok, {'n' * 1025}]\n  titled: [{{value: v, title: {'t' * 1025}}}]\n  heavy: [{', '.join(f'{n:02}' + 'w' * 998 for n in range(33))}]\n",
    "_commands/branch.md": command("{type: string, source: git-branch}"),
    "_commands/file.md": command('{type: string, source: "file:*.md"}'),
    "_commands/tag-case.md": command("{type: string, source: Git-Tags}"),
    "_commands/unknown-list.md": command('{type: string, source: "list:env"}'),
    "_commands/no-list.md": command('{type: string, source: "list:colours"}'),
    "_commands/bare-files.md": command("{type: string, source: files}"),
    "_commands/outside.md": command('{type: string, source: "files:../secrets/*"}'),
    "_commands/absolute.md": command('{type: string, source: "files:/etc/*"}'),
    "_commands/bracket.md": command('{type: string, source: "files:docs/[ab.md"}'),
    "_commands/stars.md": command('{type: string, source: "files:docs/**.md"}'),
    "_commands/integer.md": command("{type: integer, source: git-tags}"),
    "_commands/array-top.md": command("{type: array, source: git-tags, items: {type: string}}"),
    "_commands/with-enum.md": command("{type: string, source: git-tags, enum: [v1]}"),
    "_commands/live-default.md": command("{type: string, source: git-branches, default: main}"),
    "_commands/list-default.md": command('{type: string, source: "list:envs", default: qa}'),
    "_commands/fine.md": command('{type: array, items: {type: string, source: "files:docs/**/*.md"}}'),
    "_skills/triage/SKILL.md": (
        "---\nname: triage\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n"
        "        branch: {type: string, source: git-branches}\n        env: {type: string, source: \"list:envs\"}\n"
        "includes: [where]\n---\nTriage.\n"
    ),
    "_partials/where.md": "---\nelicitation:\n  w:\n    message: M.\n    schema:\n      type: object\n      properties:\n        region: {type: string, source: \"list:regions\"}\n---\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return write_files(tmp_path_factory.mktemp("sources"), MISTAKES)


@pytest.fixture(scope="module")
def report(root):
    return lint(Docroot(root).build())


def errors_of(report, path):
    return [(problem.line, problem.message) for problem in report.problems if problem.path == path]


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("branch", "field 'x': unknown source 'git-branch'; did you mean `git-branches`?"),
        ("file", "field 'x': unknown source 'file:*.md'; did you mean `files:*.md`?"),
        ("tag-case", "field 'x': unknown source 'Git-Tags'; did you mean `git-tags`?"),
        ("unknown-list", "field 'x': source 'list:env': guide.yaml has no list 'env'; did you mean `list:envs`?"),
        ("no-list", "field 'x': source 'list:colours': guide.yaml has no list 'colours'; add it under `lists:` in guide.yaml (it has: envs, regions)"),
        ("bare-files", "field 'x': source 'files' needs an argument: write `files:<glob>`"),
        ("outside", "field 'x': source 'files:../secrets/*': the glob has a '..' path segment; name folders inside the project only"),
        ("absolute", "field 'x': source 'files:/etc/*': the glob must be a relative path"),
        ("bracket", "field 'x': source 'files:docs/[ab.md': the glob segment '[ab.md' has an unclosed `[`"),
        ("stars", "field 'x': source 'files:docs/**.md': `**` must be a whole path segment"),
        ("integer", "field 'x': `source` does not fit an integer field; a source gives text choices"),
        ("array-top", "field 'x': `source` does not fit an array field; a multi-select takes it on its items"),
        ("with-enum", "field 'x': `source` derives the choices; remove `enum`/`oneOf`"),
        ("live-default", "field 'x': `source: git-branches` is read when the form is delivered, so a `default` cannot be checked"),
        ("list-default", "field 'x': default qa is not one of the choices"),
    ],
)
def test_c5_each_source_mistake_is_reported_on_its_line(report, path, says):
    (line, message), *more = errors_of(report, f"_commands/{path}.md")
    assert line == 9 and says in message
    assert more == [] or path == "array-top"  # that field's items also lack choices: a second, true report


def test_c5_a_skill_takes_no_source_and_is_told_the_choices_to_write_instead(report):
    # The seed: a skill's client receives its schema unchanged; skills do no command specialisation (issue 34).
    [(line, branch), (env_line, env)] = errors_of(report, "_skills/triage/SKILL.md")
    assert line == 10 and "`source: git-branches` is for commands only" in branch and "write the choices as an `enum` (or a titled `oneOf`)" in branch
    assert env_line == 11 and "`source: list:envs` is for commands only" in env and "write the choices as an `enum: [staging, production]`" in env
    [(_, region)] = errors_of(report, "_partials/where.md")  # a partial the skill includes is the skill's too
    assert "write the choices as a titled `oneOf: [{const: eu, title: Europe}]`" in region


def test_c5_broken_lists_in_guide_yaml_are_reported_on_their_line(report):
    assert errors_of(report, "guide.yaml") == [
        (5, "list 'twice' lists a value twice"),
        (6, "list 'broken' must be a non-empty list of values, or of {value, title} with text in both"),
        (7, f"list 'long' has a value or title of 1,025 characters ('{'n' * 40}...'); a choice takes at most 1,024"),
        (8, f"list 'titled' has a value or title of 1,025 characters ('{'t' * 40}...'); a choice takes at most 1,024"),
        (9, "list 'heavy' takes 33,000 characters in all; a list offers at most 32,768"),
    ]


def test_c5_a_correct_multi_select_source_is_not_reported(report):
    assert errors_of(report, "_commands/fine.md") == []


def test_c5_guide_check_json_names_file_line_form_and_field(root, capsys):
    status = main(["check", str(root), "--format", "json"])
    errors = json.loads(capsys.readouterr().out)["errors"]
    found = next(error for error in errors if error["path"] == "_commands/branch.md")
    assert status == 1 and found["line"] == 9 and found["form"] == "f" and found["field"] == "x"


def test_c5_the_documented_source_example_has_no_mistake(tmp_path):
    text = (Path(__file__).resolve().parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index("## Choices from a source") :]
    lists = section.split("```\n", 2)[1]
    ship = section[section.index("```markdown\n") + len("```markdown\n") :].split("```\n", 1)[0]
    root = write_files(tmp_path, {"guide.yaml": lists, "_commands/ship.md": ship})
    report = lint(Docroot(root).build())
    assert report.problems == [] and report.notes == []
    [form] = Docroot(root).build().command("ship").forms.forms
    assert [str(field.source) for field in form.fields] == ["git-branches", "files:notes/*.md", "list:environments", "list:regions"]
