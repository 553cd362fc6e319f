"""C5: authoring mistakes real authors make are each reported by `guide check` with file, line and what to do.

One docroot (a postmortem command set, as a new author would write it) holds every
mistake of the table in the fail-loudly issue; each test names its row.
"""

import json
from pathlib import Path

import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint

FORM = """\
  incident:
    message: Which incident?
    schema:
      type: object
      properties:
        ticket: {type: string}
      required: [ticket]
"""

POSTMORTEM = {
    "guide.yaml": "flags: {team: sre}\n",
    "_partials/timeline.md": "---\nelicitaton:\n  timeline:\n    message: When?\n    schema: {type: object, properties: {start: {type: string}}}\n---\nTimeline.\n",
    "_partials/impact.md": "---\nelicitation:\n  impact:\n    message: Impact?\n    schema: {type: object, properties: {users: {type: integer}}}\n---\nUsers: {{kwargs.users}}\n",
    "_partials/signoff.md": "Signed.\n{{>footer}}\n",
    "_partials/footer.md": "Footer.\n{{>signoff}}\n",
    "_commands/missing-partial.md": "---\ndescription: d\n---\nIntro.\n{{>timelines}}\n",
    "_commands/uses-impact.md": "---\ndescription: d\n---\nIntro.\n{{>impact}}\n",
    "_commands/dupe-form.md": "---\ndescription: d\nelicitation:\n" + FORM + FORM + "---\nb\n",
    "_commands/dupe-field.md": (
        "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n"
        "        ticket: {type: string}\n        ticket: {type: integer}\n---\nb\n"
    ),
    "_commands/release-notes.md": "---\ndescription: d\n---\nNotes.\n{{>signoff}}\n",
    "_commands/team-only.md": "---\ndescription: d\nrequires-teem: sre\n---\nb\n",
    "_commands/alias-clash.md": "---\ndescription: d\naliases: [uses-impact, pm]\n---\nb\n",
    "_commands/alias-twin.md": "---\ndescription: d\naliases: [pm]\n---\nb\n",
    "_commands/help-field.md": "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {help: {type: boolean}}}\n---\nb\n",
    "_commands/project-field.md": "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {project: {type: string}}}\n---\nb\n",
    "runbooks/database.md": "---\nelicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {x: {type: string}}}\n---\n# Database\n",
    "_skills/triage/SKILL.md": "---\nname: triage\ndescription: d\n---\nTriage.\n",
    "_skills/triage/notes.md": "---\nelicitation: {f: {message: M., schema: {type: object, properties: {x: {type: string}}}}}\n---\nNotes.\n",
    "_commands/quoted.md": (
        '---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n'
        '        ticket: {type: string, pattern: "INC-\\d{3,6}"}\n---\nb\n'
    ),
    "_commands/onoff.md": "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {on: {type: boolean}}}\n---\nb\n",
    "_commands/meta.md": "---\ndescription: d\ntitle: Postmortem\ntags: [incident]\nversion: 2\n---\nb\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("postmortem")
    for rel, text in POSTMORTEM.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def report(root):
    return lint(Docroot(root).build())


def errors_of(report, path):
    return [(problem.line, problem.message) for problem in report.problems if problem.path == path]


def notes_of(report, path):
    return [(note.line, note.message) for note in report.notes if note.path == path]


def test_typo_elicitaton_in_a_partial(report):
    assert errors_of(report, "_partials/timeline.md") == [(2, "unknown partial frontmatter key `elicitaton`; did you mean `elicitation`?")]


def test_body_names_a_partial_that_does_not_exist(report):
    [(line, message)] = errors_of(report, "_commands/missing-partial.md")
    assert line == 5 and message == "`{{>timelines}}` names no partial; did you mean 'timeline'?"


def test_body_partial_with_forms_not_in_includes_is_a_note(report):
    assert errors_of(report, "_commands/uses-impact.md") == []
    [(line, message)] = notes_of(report, "_commands/uses-impact.md")
    assert line == 5 and "forms are not asked here" in message and "add 'impact' to `includes`" in message


def test_the_same_form_id_twice_in_one_file(report):
    [(line, message)] = errors_of(report, "_commands/dupe-form.md")
    assert line == 11 and "key 'incident' appears twice in one mapping (first on line 4)" in message


def test_the_same_property_twice_in_one_form(report):
    [(line, message)] = errors_of(report, "_commands/dupe-field.md")
    assert line == 10 and "key 'ticket' appears twice in one mapping (first on line 9)" in message


def test_partials_including_each_other_in_a_loop(report, root, capsys):
    assert errors_of(report, "_partials/signoff.md") == [(2, "`{{>footer}}` enters a loop of partials that include each other: footer -> signoff -> footer")]
    assert errors_of(report, "_partials/footer.md") == [(2, "`{{>signoff}}` enters a loop of partials that include each other: signoff -> footer -> signoff")]
    assert errors_of(report, "_commands/release-notes.md") == [(5, "`{{>signoff}}` enters a loop of partials that include each other: signoff -> footer -> signoff")]
    status = main(["render", "guide://_release-notes", "--docroot", str(root)])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err and "RecursionError" not in err and "loop of partials" in err


def test_requires_names_a_flag_guide_yaml_does_not_define(report):
    [(line, message)] = errors_of(report, "_commands/team-only.md")
    assert line == 3 and "`requires-teem` names flag 'teem', which guide.yaml does not define (defined: team)" in message
    assert "did you mean `requires-team`?" in message


def test_an_alias_equal_to_another_commands_name_or_alias(report):
    [(line, message)] = errors_of(report, "_commands/alias-twin.md")
    assert line == 3 and message == "alias 'pm' is also an alias of command 'alias-clash'; rename one of them"
    [(line, message)] = errors_of(report, "_commands/alias-clash.md")
    assert line == 3 and "alias 'uses-impact' is the name of another command" in message


def test_a_field_named_help(report):
    [(line, message)] = errors_of(report, "_commands/help-field.md")
    assert line == 6 and "field name 'help' is reserved" in message and "rename it" in message


def test_a_field_named_project(report):
    [(line, message)] = errors_of(report, "_commands/project-field.md")
    assert line == 6 and "field name 'project' is reserved: `project=<path>` names the project a read is about" in message and "rename it" in message


def test_elicitation_on_a_document_or_skill_member_is_a_note(report):
    assert notes_of(report, "runbooks/database.md") == [(2, notes_of(report, "runbooks/database.md")[0][1])]
    assert "never asked" in notes_of(report, "runbooks/database.md")[0][1]
    assert "never asked" in notes_of(report, "_skills/triage/notes.md")[0][1]
    assert errors_of(report, "runbooks/database.md") == errors_of(report, "_skills/triage/notes.md") == []


def test_pattern_with_a_backslash_in_double_quotes(report):
    [(line, message)] = errors_of(report, "_commands/quoted.md")
    assert line == 9 and "unknown escape character" in message and "single quotes" in message


def test_a_field_named_on_yes_or_off(report):
    [(line, message)] = errors_of(report, "_commands/onoff.md")
    assert line == 6 and "field name True" in message and "quote the name, e.g. 'on'" in message


def test_top_level_keys_like_tags_version_are_notes(report):
    assert errors_of(report, "_commands/meta.md") == []
    assert [line for line, _ in notes_of(report, "_commands/meta.md")] == [4, 5]  # `title` (line 3) is read: what lists show (issue 37)
    assert all("kept as your own metadata" in message for _, message in notes_of(report, "_commands/meta.md"))


def test_guide_check_reports_every_mistake_with_file_and_line_and_notes_apart(root, capsys):
    assert main(["check", str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    errors = [line for line in lines[:-1] if not line.startswith("note: ")]
    notes = [line for line in lines[:-1] if line.startswith("note: ")]
    assert len(errors) == 14 and all(line.split(":")[1].isdigit() for line in errors), errors
    assert len(notes) == 5  # `title` is read now (issue 37), so it is no note
    assert lines[-1].startswith("14 errors, 5 notes; ")


def test_json_has_notes_beside_errors_with_the_same_fields(root, capsys):
    main(["check", str(root), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert len(report["errors"]) == 14 and len(report["notes"]) == 5
    assert all(list(note) == ["path", "line", "form", "field", "message"] for note in report["notes"])


def test_notes_alone_pass_unless_strict(tmp_path, capsys):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "meta.md").write_text(POSTMORTEM["_commands/meta.md"])
    assert main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("ok, 2 notes: ")
    assert main(["check", str(tmp_path), "--strict"]) == 1


def test_one_root_cause_is_reported_without_follow_on_errors(tmp_path):
    """Issue 14 item 3: a form rejected for its own mistake is not reported again by `args`, `when` or `requires-*`."""
    files = {
        "guide.yaml": "flags: [not, a, mapping]\n",
        "_commands/pm.md": (
            "---\ndescription: d\nargs: [ticket]\nrequires-team: sre\nelicitation:\n"
            "  incident:\n    message: M.\n    schema: {type: object, properties: {ticket: {type: string, pattern: '('}}}\n"
            "  timeline:\n    message: T.\n    when: {ticket: [INC-1]}\n    schema: {type: object, properties: {start: {type: string}}}\n---\nb\n"
        ),
    }
    write_files(tmp_path, files)
    report = lint(Docroot(tmp_path).build())
    messages = [(problem.path, problem.message) for problem in report.problems]
    assert [path for path, _ in messages] == ["_commands/pm.md", "guide.yaml"], messages
    assert "`pattern` '(' is not a valid regular expression" in messages[0][1]
