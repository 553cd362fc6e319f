"""A scenario file with each kind of mistake gets one clear error, with its file and line and, where it has one, the name it resembles.

Shapes are checked from the file alone (`parse`); what the scenario names is
checked against the docroot (`checks`): the entrypoint, its forms and fields,
the answers' JSON types (C6), the project folder. `guide check` reports both.
"""

import json
import time

import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.scenarios import checks
from guide.docroot.scenarios.folder import read_all
from guide.docroot.scenarios.parse import parse

REVIEW = """---
elicitation:
  target:
    message: Choose what to review.
    schema:
      type: object
      properties:
        mode: {type: string, enum: [uncommitted, branch]}
      required: [mode]
  reference:
    message: Which branch?
    when: {mode: branch}
    schema:
      type: object
      properties:
        reference: {type: string}
        count: {type: integer}
      required: [reference]
  signin:
    mode: url
    message: Sign in.
    url: https://accounts.example.com/in
    fallback: render
---
Review {{kwargs.mode}}.
"""
DOCROOT = {"guide.yaml": "url-hosts: [accounts.example.com]\n", "_commands/review.md": REVIEW, "notes.md": "# Notes\n",
           "_tests/projects/one/.guide.yaml": "phase: x\n"}

# (the scenario's YAML below its name line, the line of the error, what the error says)
MISTAKES = [
    ("  reed: guide://_review\n  expect: {text: x}\n", 2, "unknown key `reed`; did you mean `read`?"),
    ("  read: guide://_review\n  colour: blue\n  expect: {text: x}\n", 3, "unknown key `colour`; a scenario takes `read`"),
    ("  expect: {text: x}\n", 1, "says nothing to read: give `read`"),
    ("  read: guide://_review\n  prompt: _review\n  expect: {text: x}\n", 3, "gives both `read` and `prompt`"),
    ("  read: 7\n  expect: {text: x}\n", 2, "`read` is a non-empty text"),
    ("  read: guide://_reveiw\n  expect: {text: x}\n", 2, "no command reveiw in this docroot; did you mean guide://_review?"),
    ("  read: guide://$review\n  expect: {text: x}\n", 2, "no skill review in this docroot"),
    ("  read: guide://notes\n  expect: {text: x}\n", 2, "names a document; a scenario reads a command or a skill"),
    ("  prompt: review\n  expect: {text: x}\n", 2, "a guide prompt starts with a command"),
    ("  read: guide://_review\n  answers: [target]\n  expect: {text: x}\n", 3, "`answers` maps each form id"),
    ("  read: guide://_review\n  answers:\n    target: declin\n  expect: {text: x}\n", 4, "did you mean decline?"),
    ("  read: guide://_review\n  answers:\n    targte: {mode: branch}\n  expect: {text: x}\n", 4, "has no form targte; did you mean target?"),
    ("  read: guide://_review\n  answers:\n    target: {mdoe: branch}\n  expect: {text: x}\n", 4, "form target has no field mdoe; did you mean mode?"),
    ("  read: guide://_review\n  answers:\n    target: {reference: x}\n  expect: {text: x}\n", 4, "field reference is in form reference"),
    ("  read: guide://_review\n  answers:\n    reference:\n      count: '3'\n  expect: {text: x}\n", 5,
     "the answer to field count is not accepted"),
    ("  read: guide://_review\n  answers:\n    reference:\n      reference: 2026-12-01\n  expect: {text: x}\n", 5,
     "YAML reads an unquoted date or time as one: quote it"),
    ("  read: guide://_review\n  answers:\n    signin: {user: ada}\n  expect: {text: x}\n", 4, "form signin is a link (mode: url)"),
    ("  read: guide://_review\n  clients: [forms, agnet]\n  expect: {text: x}\n", 3, "unknown client 'agnet'; did you mean agent?"),
    ("  read: guide://_review\n  clients: [agent]\n  answers:\n    target: decline\n  expect: {text: x}\n", 3,
     "which only a client that shows forms can carry"),
    ("  read: guide://_review\n  clients: [keywords]\n  expect: {text: x}\n", 3, "`keywords` reads the address with what the person gave"),
    ("  prompt: _review\n  clients: [apps]\n  expect: {text: x}\n", 3, "the App form is opened by address"),
    ("  read: guide://_review\n  project: ../../elsewhere\n  expect: {text: x}\n", 3, "must be a path inside _tests/"),
    ("  read: guide://_review\n  project: projects/two\n  expect: {text: x}\n", 3, "is not a folder inside the docroot"),
    ("  read: guide://_review?project=/tmp\n  project: projects/one\n  expect: {text: x}\n", 2, "give it with `project` only"),
    ("  read: guide://_review\n", 1, "`expect` says what should happen"),
    ("  read: guide://_review\n  expect: {txet: x}\n", 3, "unknown key `txet`; did you mean `text`?"),
    ("  read: guide://_review\n  expect: {text: x, snapshot: a.md}\n", 3, "gives both `text` and `snapshot`"),
    ("  read: guide://_review\n  expect: {snapshot: /etc/passwd}\n", 3, "must be a path inside _tests/"),
    ("  read: guide://_review\n  expect: {snapshot: other.yaml}\n", 3, "would be read as a scenario file"),
    ("  read: guide://_review\n  expect: {snapshot: projects/one}\n", 3, "the snapshot _tests/projects/one is not a file"),
    ("  read: guide://_review\n  expect: {text: [x]}\n", 3, "`expect.text` is the rendered text"),
    ("  read: guide://_review\n  expect:\n    text: x\n    fails: {reason: declined}\n", 5, "`expect.fails` goes alone"),
    ("  read: guide://_review\n  expect:\n    fails: {reason: declind}\n", 4, "unknown failure reason 'declind'; did you mean declined?"),
    ("  read: guide://_review\n  expect:\n    fails: {reason: missing}\n", 4, "only a client without forms fails with `missing`"),
    ("  read: guide://_review\n  clients: agent\n  expect:\n    fails: {reason: cancelled}\n", 5, "only a client that shows forms fails with"),
    ("  read: guide://_review\n  expect:\n    fails: {reason: invalid, fields: [mdoe]}\n", 4, "has no field mdoe; did you mean mode?"),
    ("  read: guide://_review\n  expect:\n    asks: [target, refrence]\n", 4, "has no form refrence; did you mean reference?"),
    ("  read: guide://_review\n  expect:\n    asks: [reference, target]\n", 4, "in declaration order (target, reference, signin)"),
]


def problems_of(root, text):
    """Every problem and note the docroot's one scenario file has, shape and docroot checks together."""
    write_files(root, {**DOCROOT, "_tests/review.yaml": text})
    [found] = read_all(root)
    built = Docroot(root).build()
    problems, notes = list(found.problems), []
    for scenario in found.scenarios:
        checked = checks.check(built, scenario)
        problems += checked.problems
        notes += checked.notes
    return problems, notes


@pytest.mark.parametrize(("body", "line", "says"), MISTAKES, ids=[says for _, _, says in MISTAKES])
def test_each_mistake_is_one_error_at_its_line(tmp_path, body, line, says):
    problems, _ = problems_of(tmp_path, f"# the scenarios of review\nthe case:\n{body}")
    assert len(problems) == 1, [str(problem) for problem in problems]
    [problem] = problems
    assert (problem.path, problem.line) == ("_tests/review.yaml", line + 1), str(problem)
    assert problem.message.startswith("scenario 'the case': ") and says in problem.message, problem.message


@pytest.mark.parametrize(("text", "line", "says"), [
    ("a: [b\n", 2, "the scenario file is not valid YAML"),
    ("a: 1\na: 2\n", 2, "appears twice in one mapping"),
    ("- read: guide://_review\n", 1, "a scenario file is a YAML mapping of scenario names to scenarios"),
    ("", 1, "this one holds none"),
    ("3: {read: guide://_review, expect: {text: x}}\n", 1, "a scenario's name is a non-empty text, not 3; quote it"),
    ("yes: {read: guide://_review, expect: {text: x}}\n", 1, "quote the name"),
    ("the case: guide://_review\n", 1, "a scenario is a mapping with `read`"),
])
def test_a_file_that_holds_no_scenario_says_why(tmp_path, text, line, says):
    problems, _ = problems_of(tmp_path, text)
    assert len(problems) == 1 and problems[0].line == line and says in problems[0].message, [str(p) for p in problems]


def test_a_good_scenario_has_no_problem_and_a_missing_snapshot_is_a_note(tmp_path):
    text = ("the case:\n  read: guide://_review\n  answers:\n    target: {mode: branch}\n    reference: {reference: main, count: 3.0}\n"
            "    signin: {}\n  clients: [forms, url]\n  expect:\n    asks: [target, reference, signin]\n    snapshot: snapshots/case.md\n")
    problems, notes = problems_of(tmp_path, text)
    assert problems == []
    assert [(note.line, note.message) for note in notes] == [
        (10, "scenario 'the case': the snapshot _tests/snapshots/case.md does not exist yet; `guide test --update` writes it")]


def test_parsing_keeps_what_the_scenario_says():
    found = parse("_tests/x.yaml", "one:\n  prompt: ':review --mode branch'\n  answers: {reference: {reference: main}, target: cancel}\n"
                                   "  clients: forms\n  project: p\n  expect: {fails: {reason: cancelled, fields: [mode]}}\n")
    [scenario] = found.scenarios
    assert (scenario.read, scenario.prompt, scenario.clients, scenario.named_clients) == (None, ":review --mode branch", ("forms",), True)
    assert scenario.answers == {"reference": {"reference": "main"}, "target": "cancel"} and scenario.refuses()
    assert (scenario.project, scenario.expect.fails.reason, scenario.expect.fails.fields) == ("_tests/p", "cancelled", ("mode",))
    assert scenario.line_of("expect", "fails") == 6 and found.problems == ()


def test_guide_check_reports_scenario_mistakes_and_sees_a_fixed_file_at_once(tmp_path, capsys):
    write_files(tmp_path, {**DOCROOT, "_tests/review.yaml": "the case:\n  read: guide://_review\n  answers: {targte: {mode: branch}}\n"
                                                            "  expect: {text: x}\n"})
    assert main(["check", str(tmp_path), "--format", "json"]) == 1
    [error] = json.loads(capsys.readouterr().out)["errors"]
    assert (error["path"], error["line"]) == ("_tests/review.yaml", 3) and "did you mean target?" in error["message"]
    time.sleep(0.01)
    write_files(tmp_path, {"_tests/review.yaml": "the case:\n  read: guide://_review\n  answers: {target: {mode: branch}}\n  expect: {text: x}\n"})
    assert main(["check", str(tmp_path)]) == 0  # the kept report is not reused: the scenario file changed
    assert capsys.readouterr().out.startswith("ok")
