"""`guide render`: render without a client (or answering from a file) and explain each form."""

import json
import textwrap

import pytest

from guide.cli import main
from guide.cli.explain import STATUSES


def _render(capsys, *arguments):
    status = main(["render", *map(str, arguments)])
    out, err = capsys.readouterr()
    return status, out, err


def test_render_explains_supplied_inapplicable_and_defaulted_forms(capsys):
    status, out, err = _render(capsys, "guide://_review?mode=uncommitted")
    assert status == 0
    assert "# Review: uncommitted" in out
    assert "No depth was chosen, so this is a quick pass." in out
    assert err.splitlines() == [
        "form target: supplied: keywords give mode",
        "form reference: not applicable: when mode in [branch, pull-request] (it is uncommitted)",
        "form depth: defaulted: its defaults fill depth; an interactive client would be asked",
    ]


def test_render_takes_values_from_set_and_reports_fallback(capsys):
    status, out, err = _render(capsys, "guide://_release", "--set", "label=v1.2.3", "--set", "dry_run=true")
    assert status == 0
    assert "# Release v1.2.3" in out and "- attempts: 3" in out and "- dry run: true" in out
    assert "form options: supplied: keywords give label, dry_run" in err
    assert "form notes: fallback: it renders without highlights (`fallback: render`)" in err


def test_render_names_the_missing_keywords_and_exits_1(capsys):
    status, out, err = _render(capsys, "guide://_review", "--set", "mode=branch")
    assert status == 1
    assert out == ""
    assert "form reference: missing: supply reference=; an interactive client would be asked" in err
    assert "supply the keywords: reference" in err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["guide://_review", "--set", "novalue"], "--set takes K=V"),
        (["guide://lang/python", "--set", "a=b"], "--set gives keywords to a command or skill"),
        (["guide://_review?mode=sideways"], "invalid keyword mode"),
        (["guide://_nothing"], "no command nothing"),
    ],
)
def test_render_reports_bad_input_in_one_line(capsys, arguments, message):
    status, out, err = _render(capsys, *arguments)
    assert status == 1
    assert message in err.splitlines()[-1]


def test_render_serves_help_without_asking(capsys):
    status, out, _ = _render(capsys, "guide://_help/review")
    assert status == 0
    assert "## Form `reference`" in out
    assert "keyword `reference=`" in out


# --- the explanations of issue 9 ---------------------------------------------------------------

SETTINGS = """\
---
elicitation:
  options:
    message: Settings?
    schema:
      type: object
      properties:
        label: {type: string}
        attempts: {type: integer, default: 3, maximum: 5}
      required: [label, attempts]
  depth:
    message: How deep?
    schema:
      type: object
      properties:
        depth: {type: string, enum: [quick, thorough], default: quick}
      required: [depth]
  deep:
    message: What should the thorough pass focus on?
    when: {depth: [thorough]}
    schema:
      type: object
      properties:
        focus: {type: string}
      required: [focus]
---
SETTINGS {{kwargs.label}} {{kwargs.attempts}} {{kwargs.depth}}
"""


@pytest.fixture
def settings_docroot(tmp_path):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "settings.md").write_text(textwrap.dedent(SETTINGS))
    return tmp_path


def test_render_explains_a_form_keywords_and_defaults_complete_as_defaulted_not_fallback(capsys, settings_docroot):
    status, out, err = _render(capsys, "guide://_settings", "--docroot", settings_docroot, "--set", "label=v1")
    assert status == 0 and out.strip() == "SETTINGS v1 3 quick"
    assert "form options: defaulted: keywords give label; its defaults fill attempts; an interactive client would be asked" in err
    assert "fallback" not in err


def test_render_explains_a_form_whose_when_a_default_decided_as_not_applicable(capsys, settings_docroot):
    _, _, err = _render(capsys, "guide://_settings", "--docroot", settings_docroot, "--set", "label=v1")
    assert "form deep: not applicable: when depth in [thorough] (it is quick)" in err
    assert "wait" not in err


def test_render_explains_an_invalid_keyword_and_never_calls_a_given_field_missing(capsys, settings_docroot):
    status, _, err = _render(capsys, "guide://_settings", "--docroot", settings_docroot, "--set", "label=v1", "--set", "attempts=9")
    assert status == 1
    assert "form options: invalid: invalid keyword attempts: 9 is greater than the maximum 5" in err
    assert "missing label" not in err and "supply label" not in err


# --- answers and JSON ------------------------------------------------------------------------------


def test_render_answers_forms_from_a_file_as_an_interactive_client(capsys, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"target": {"mode": "branch"}, "reference": {"reference": "feature/x"}}))
    status, out, err = _render(capsys, "guide://_review", "--answers", answers)
    assert status == 0
    assert "Compare `feature/x`" in out and "No depth was chosen" in out
    assert err.splitlines() == [
        "form target: answered: answered from the answers file",
        "form reference: answered: answered from the answers file",
        "form depth: cancelled: not in the answers file, so cancelled; its defaults stand in",
    ]


def test_render_with_set_and_answers_together(capsys, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"reference": {"reference": "pr/7"}, "depth": {"depth": "thorough"}}))
    status, out, err = _render(capsys, "guide://_review", "--set", "mode=pull-request", "--answers", answers)
    assert status == 0
    assert "# Review: pull-request" in out and "Compare `pr/7`" in out
    assert "form target: supplied: keywords give mode" in err


def test_render_stops_at_a_declined_form(capsys, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"target": "decline", "depth": {"depth": "quick"}}))
    status, out, err = _render(capsys, "guide://_review", "--answers", answers)
    assert status == 1 and out == ""
    assert "form target: declined: declined in the answers file, which ends the interaction" in err
    assert "form depth: not reached" in err
    assert err.splitlines()[-1].startswith("guide render: form target was declined; to go on without the form, supply its fields as keywords: mode")


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"tagret": {"mode": "branch"}}, "the answers file names form tagret, which guide://_review does not have; did you mean target? (its forms: target, reference, depth)"),
        ({"target": {"mode": "sideways"}}, "the answers file's answer to form target is not accepted: field mode: sideways is not one of the choices; it accepts one of: uncommitted, branch, pull-request"),
        ({"target": {"mdoe": "branch"}}, "the answers file's answer to form target is not accepted: the form has no field mdoe; did you mean mode?"),
        ({"target": {"mode": "branch"}, "reference": {"reference": "bad ref"}}, "the answers file's answer to form reference is not accepted: field reference: 'bad ref' does not match the pattern"),
    ],
)
def test_render_names_a_mistake_in_the_answers_file_in_one_line(capsys, tmp_path, answers, message):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    status, out, err = _render(capsys, "guide://_review", "--answers", path)
    assert status == 1 and out == ""
    assert err.splitlines()[-1].startswith(f"guide render: {message}")


def test_render_json_holds_the_text_and_each_forms_status_and_reason(capsys):
    status, out, err = _render(capsys, "guide://_review?mode=uncommitted", "--format", "json")
    assert status == 0 and err == ""
    report = json.loads(out)
    assert report["text"].startswith("# Review: uncommitted") and report["error"] is None
    assert [(form["id"], form["status"]) for form in report["forms"]] == [("target", "supplied"), ("reference", "not-applicable"), ("depth", "defaulted")]
    assert all(form["status"] in STATUSES and form["reason"] for form in report["forms"])


def test_render_json_of_a_failure_has_no_text_and_the_error(capsys):
    status, out, _ = _render(capsys, "guide://_review", "--format", "json")
    assert status == 1
    report = json.loads(out)
    assert report["text"] is None and report["error"] == (
        "this client cannot answer forms; supply the keywords: mode (string, required; one of: uncommitted, branch, pull-request); "
        "for example guide://_review?mode=<uncommitted|branch|pull-request>"
    )
    assert report["forms"][0] == {"id": "target", "status": "missing", "reason": "supply mode=; an interactive client would be asked"}
    missing = json.loads(_render(capsys, "guide://_nothing", "--format", "json")[1])
    assert missing == {"text": None, "error": "no command nothing; guide://_help lists the commands, skills and documents", "forms": []}


def test_render_takes_the_project_keyword_as_the_reads_project(capsys, tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / ".guide.yaml").write_text("phase: review\n", encoding="utf-8")
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / ".guide.yaml").write_text("phase: planning\n", encoding="utf-8")
    status, out, _ = _render(capsys, f"guide://_workflow/phase/check?project={tmp_path}/web", "--project", tmp_path / "own")
    assert status == 0 and "The project is in **review**." in out
    status, out, err = _render(capsys, f"guide://_workflow/phase/check?project={tmp_path}/missing", "--project", tmp_path / "own")
    assert status == 1 and out == ""
    assert err.splitlines()[-1].endswith("is not a folder; accepted: project=<absolute path of a folder>, or --project DIR")


def test_render_reports_every_invalid_keyword_at_once(capsys):
    status, _, err = _render(capsys, "guide://_review?mode=x&depth=y&reference=a%20b")
    assert status == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("guide render: 3 invalid keywords: mode: x is not one of the choices; it accepts one of: uncommitted, branch, pull-request; ")
    assert "reference: 'a b' does not match the pattern" in last and "depth: y is not one of the choices" in last
