"""Issue 21 item 2 (C5, C9): a body reference that names no field or form is caught by `guide check`.

`kwargs.<name>` (variable or section) naming no field and no arg, in the
entrypoint or in a partial it renders, is an error when it is a near miss of a
field and a note otherwise; `elicitation.defaulted_forms.<id>` likewise for forms.
"""

import pytest
from support.files import write_files

from bench.harness.docroot_gen import generate
from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.errors import AuthoringError
from guide.examples import DOCROOT
from guide.routes.lookup import AddressRead, resolve
from guide.scaffold import DOCROOT as SCAFFOLD

HEAD = """---
description: Fix an issue.
args: [issue]
includes: [verify]
elicitation:
  target:
    message: Which issue?
    schema:
      type: object
      properties:
        issue: {type: string}
        verbose: {type: boolean}
---
"""
BODY_LINE = HEAD.count("\n") + 1
VERIFY = """---
elicitation:
  check:
    message: How do you test?
    schema:
      type: object
      properties:
        test_command: {type: string}
---
Run {{kwargs.test_command}}.
"""


def report_for(tmp_path, body: str, **more: str):
    root = write_files(tmp_path, {"_commands/fix.md": HEAD + body, "_partials/verify.md": VERIFY, **more})
    return root, lint(Docroot(root).build())


def located(items, path="_commands/fix.md"):
    return [(item.line, item.message) for item in items if item.path == path]


@pytest.mark.parametrize(
    "tag",
    ["{{kwargs.%s}}", "{{{kwargs.%s}}}", "{{&kwargs.%s}}", "{{#kwargs.%s}}on{{/kwargs.%s}}", "{{^kwargs.%s}}off{{/kwargs.%s}}"],
    ids=["variable", "triple", "ampersand", "section", "inverted"],
)
def test_21_2_a_reference_that_nearly_names_a_field_is_an_error(tmp_path, tag):
    root, report = report_for(tmp_path, "Intro.\n" + tag.replace("%s", "isue") + "\n")
    assert located(report.problems) == [(BODY_LINE + 1, "`kwargs.isue` names no field; did you mean `issue`?")]
    with pytest.raises(AuthoringError, match="did you mean `issue`"):
        resolve(Docroot(root).build(), AddressRead("guide://_fix?issue=42"))


@pytest.mark.parametrize("name", ["isue", "Issue", "issues", "isuse", "tset_command", "test-command", "verbos"])
def test_21_2_near_misses_of_a_field_are_errors(tmp_path, name):
    _, report = report_for(tmp_path, f"{{{{kwargs.{name}}}}}\n")
    [(line, message)] = located(report.problems)
    assert line == BODY_LINE and message.startswith(f"`kwargs.{name}` names no field; did you mean `")


@pytest.mark.parametrize("name", ["reviewer", "id", "x", "deadline", "owner_email"])
def test_21_2_a_reference_that_resembles_no_field_is_a_note(tmp_path, capsys, name):
    root, report = report_for(tmp_path, f"Intro.\n\n{{{{#kwargs.{name}}}}}By {{{{kwargs.{name}}}}}.{{{{/kwargs.{name}}}}}\n")
    assert located(report.problems) == []
    message = f"`kwargs.{name}` names no field of this entrypoint's forms, so it renders empty unless a caller passes the keyword `{name}`"
    assert located(report.notes) == [(BODY_LINE + 2, message)]
    assert main(["check", str(root)]) == 0
    assert main(["check", str(root), "--strict"]) == 1
    capsys.readouterr()


def test_21_2_references_in_partials_rendered_through_partials_are_checked(tmp_path):
    _, report = report_for(
        tmp_path,
        "Fix it.\n{{>outer}}\n",
        **{"_partials/outer.md": "Outer.\n{{>inner}}\n", "_partials/inner.md": "One.\nTwo {{kwargs.isue}}.\n{{kwargs.reviewer}}\n"},
    )
    assert located(report.problems) == []
    assert located(report.problems, "_partials/inner.md") == [(2, "`kwargs.isue` names no field; did you mean `issue`? (rendered by _commands/fix.md)")]
    [(line, note)] = located(report.notes, "_partials/inner.md")
    assert line == 3 and note.startswith("`kwargs.reviewer` names no field") and note.endswith("(rendered by _commands/fix.md)")


def test_21_2_defaulted_forms_must_name_a_form(tmp_path):
    body = "{{#elicitation.defaulted_forms.targte}}Defaulted.{{/elicitation.defaulted_forms.targte}}\n{{^elicitation.defaulted_forms.review}}Asked.{{/elicitation.defaulted_forms.review}}\n"
    _, report = report_for(tmp_path, body)
    assert located(report.problems) == [(BODY_LINE, "`elicitation.defaulted_forms.targte` names no form; did you mean `target`?")]
    assert located(report.notes) == [(BODY_LINE + 1, "`elicitation.defaulted_forms.review` names no form of this entrypoint, so it is never true")]


def test_21_2_names_that_exist_somewhere_in_reach_are_silent(tmp_path):
    body = (
        "{{kwargs.issue}} {{kwargs.issue.length}} {{#kwargs}}any{{/kwargs}} {{kwargs.test_command}} {{kwargs.team_only}} {{kwargs.rendered}}\n"
        "{{#elicitation.defaulted_forms.target}}t{{/elicitation.defaulted_forms.target}}{{#elicitation.defaulted_forms.check}}c{{/elicitation.defaulted_forms.check}}\n"
        "{{>extra}}\n"
    )
    gated = "---\nrequires-team: data\nelicitation:\n  team:\n    message: M.\n    schema: {type: object, properties: {team_only: {type: string}}}\n---\n"
    extra = "---\nelicitation:\n  more:\n    message: M.\n    schema: {type: object, properties: {rendered: {type: string}}}\n---\nMore.\n"
    head = HEAD.replace("includes: [verify]", "includes: [verify, gated]")
    root = write_files(tmp_path, {
        "guide.yaml": "flags: {team: core}\n", "_commands/fix.md": head + body, "_partials/verify.md": VERIFY,
        "_partials/gated.md": gated, "_partials/extra.md": extra,
    })
    report = lint(Docroot(root).build())
    assert located(report.problems) == []
    assert [message for _, message in located(report.notes)] == [
        "`{{>extra}}` renders partial extra, whose forms are not asked here (its values render empty); add 'extra' to `includes`"
    ]


@pytest.mark.parametrize("docroot", [DOCROOT, SCAFFOLD], ids=["example", "scaffold"])
def test_21_2_the_bundled_docroots_check_clean_strictly(docroot, capsys):
    assert main(["check", str(docroot), "--strict"]) == 0, capsys.readouterr().out


def test_21_2_the_benchmark_docroot_checks_clean_strictly(tmp_path, capsys):
    generate(tmp_path / "docroot", 120)
    assert main(["check", str(tmp_path / "docroot"), "--strict"]) == 0, capsys.readouterr().out[-2000:]
