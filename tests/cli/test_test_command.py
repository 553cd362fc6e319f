"""`guide test DOCROOT [PATTERN]`: scenarios run through a real MCP client in every channel, each difference reported with file and line.

The scenarios run against a real Guide server in this process, through the
MCP SDK's client in both protocol eras: native forms, the App form's tools,
an agent reading its questions back, and keywords.
"""

import json
import logging
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from support.files import write_files

from guide.cli import main
from guide.examples import DOCROOT as EXAMPLE
from guide.server.app_form import tools

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
      required: [reference]
  depth:
    message: How deep?
    schema:
      type: object
      properties:
        depth: {type: string, enum: [quick, thorough], default: quick}
      required: [depth]
---
Review {{kwargs.mode}}{{#kwargs.reference}} of {{kwargs.reference}}{{/kwargs.reference}}, {{kwargs.depth}}.
"""
SCENARIOS = """a branch:
  read: guide://_review
  answers:
    target: {mode: branch}
    reference: {reference: main}
  expect:
    asks: [target, reference, depth]
    snapshot: snapshots/branch.md

uncommitted:
  read: guide://_review?mode=uncommitted
  expect:
    text: |
      Review uncommitted, quick.
"""
BRANCH = "Review branch of main, quick.\n"
CHANNELS = [f"{client}/{era}" for client in ("forms", "apps", "agent", "keywords") for era in ("legacy", "2026-07-28")]


@pytest.fixture
def docroot(tmp_path):
    """A docroot with one command and its two scenarios, whose snapshot holds what the command renders."""
    return write_files(tmp_path / "docroot", {"_commands/review.md": REVIEW, "_tests/review.yaml": SCENARIOS,
                                              "_tests/snapshots/branch.md": BRANCH})


def run(capsys, *argv) -> tuple[int, str]:
    status = main(["test", *map(str, argv)])
    return status, capsys.readouterr().out


def edit(docroot, old: str, new: str) -> None:
    path = docroot / "_commands/review.md"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_scenarios_pass_and_every_channel_renders_the_same_text(docroot, capsys):
    loggers = [(logging.getLogger(name).propagate, logging.getLogger(name).handlers[:]) for name in ("guide", "fastmcp", "mcp")]
    status, out = run(capsys, docroot, "--format", "json")
    assert status == 0
    assert [(logging.getLogger(name).propagate, logging.getLogger(name).handlers) for name in ("guide", "fastmcp", "mcp")] == loggers
    report = json.loads(out)
    assert report["summary"]["passed"] == 2 and report["summary"]["failed"] == report["summary"]["error"] == 0
    branch, uncommitted = report["scenarios"]
    assert list(branch["channels"]) == CHANNELS
    assert {channel["text"] for channel in branch["channels"].values()} == {BRANCH}
    assert all(branch["channels"][name]["asked"] == ["target", "reference", "depth"] for name in CHANNELS if not name.startswith("keywords"))
    assert {channel.get("text") for channel in uncommitted["channels"].values()} == {"Review uncommitted, quick.\n"}


@pytest.mark.parametrize(("old", "new", "says"), [
    ("Review {{kwargs.mode}}", "Check {{kwargs.mode}}", ["-Review branch of main, quick.", "+Check branch of main, quick."]),
    ("when: {mode: branch}", "when: {mode: uncommitted}",
     ["-Review branch of main, quick.", "+Review branch, quick.", "asked [target, depth], where [target, reference, depth] was expected"]),
    ("default: quick", "default: thorough", ["-Review branch of main, quick.", "+Review branch of main, thorough."]),
], ids=["a changed body", "a changed when", "a changed default"])
def test_a_changed_entrypoint_fails_with_a_diff_naming_the_file_and_update_then_passes(docroot, capsys, old, new, says):
    edit(docroot, old, new)
    status, out = run(capsys, docroot, "a branch")
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == "FAIL _tests/review.yaml:1 a branch"
    assert "  _tests/review.yaml:8: every channel (8): the rendered text differs from _tests/snapshots/branch.md" in lines
    assert "    --- _tests/snapshots/branch.md (expected)" in lines and "    +++ rendered" in lines
    for said in says:
        assert any(said in line for line in lines), (said, out)
    assert lines[-1].startswith("0 passed, 1 failed (1 scenario in ")

    status, out = run(capsys, docroot, "a branch", "--update")
    updated = (docroot / "_tests/snapshots/branch.md").read_text()
    assert updated != BRANCH and any(said.startswith("+") and said[1:] + "\n" == updated for said in says)
    if "when" in old:  # the forms asked are not a snapshot: --update leaves that difference to the author
        assert status == 1 and "UPDATED" not in out and "wrote _tests/snapshots/branch.md" in out
        return
    assert status == 0 and out.startswith("UPDATED _tests/review.yaml:1 a branch (8 channels); wrote _tests/snapshots/branch.md")
    assert run(capsys, docroot, "a branch")[0] == 0


def test_an_inline_text_is_diffed_at_its_line_and_never_rewritten(docroot, capsys):
    edit(docroot, "{{kwargs.depth}}.", "{{kwargs.depth}}!")
    status, out = run(capsys, docroot, "uncommitted", "--update")
    assert status == 1
    assert "  _tests/review.yaml:13: every channel (8): the rendered text differs from expect.text" in out
    assert "    --- _tests/review.yaml:13 expect.text (expected)" in out and "    +Review uncommitted, quick!" in out
    assert "Review uncommitted, quick.\n" in (docroot / "_tests/review.yaml").read_text()


def test_a_channel_that_disagrees_is_a_failure_naming_it_and_is_never_written_as_a_snapshot(docroot, capsys, monkeypatch):
    rounds = tools._round

    async def another_text(*args):  # the App form renders what no other channel does
        result = await rounds(*args)
        if result.structured_content["guide"] == "rendered":
            result.structured_content["text"] += "(from the App)\n"
        return result

    monkeypatch.setattr(tools, "_round", another_text)
    status, out = run(capsys, docroot, "a branch", "--update")
    assert status == 1
    assert "  _tests/review.yaml:8: apps/legacy, apps/2026-07-28: the rendered text differs from _tests/snapshots/branch.md" in out
    assert "    +(from the App)" in out and "forms/legacy" not in out
    assert (docroot / "_tests/snapshots/branch.md").read_text() == BRANCH


def test_a_form_left_unanswered_is_cancelled_by_forms_and_missing_for_the_agent(docroot, capsys):
    write_files(docroot, {"_tests/review.yaml": "nothing answered:\n  read: guide://_review\n  expect:\n    asks: [target, depth]\n"})
    status, out = run(capsys, docroot, "--format", "json")
    assert status == 1
    [scenario] = json.loads(out)["scenarios"]
    failures = {name: channel["failure"]["reason"] for name, channel in scenario["channels"].items()}
    assert failures == {**dict.fromkeys(CHANNELS[:4], "cancelled"), **dict.fromkeys(CHANNELS[4:], "missing")}
    named = [difference["channels"] for difference in scenario["differences"]]
    assert CHANNELS[4:] in named and all(set(channels) <= set(CHANNELS[:4]) or channels == CHANNELS[4:] for channels in named)


def test_a_bad_scenario_cannot_run_and_the_others_still_do(docroot, capsys):
    write_files(docroot, {"_tests/broken.yaml": "typo:\n  read: guide://_reveiw\n  expect: {text: x}\n", "_tests/worse.yaml": "a: [b\n"})
    status, out = run(capsys, docroot)
    assert status == 2
    lines = out.splitlines()
    assert "ERROR _tests/broken.yaml:1 typo" in lines
    assert "  _tests/broken.yaml:2: scenario 'typo': no command reveiw in this docroot; did you mean guide://_review?" in lines
    assert "ERROR _tests/worse.yaml:2 (the file)" in lines
    assert "PASS _tests/review.yaml:1 a branch (8 channels)" in lines
    assert lines[-1].startswith("2 passed, 2 could not run (4 scenarios in ")


def test_junit_xml_has_a_suite_per_file_and_a_case_per_scenario(docroot, capsys):
    edit(docroot, "Review {{kwargs.mode}}", "Check {{kwargs.mode}}")
    write_files(docroot, {"_tests/broken.yaml": "typo:\n  read: guide://_reveiw\n  expect: {text: x}\n"})
    status, out = run(capsys, docroot, "--format", "junit")
    assert status == 2
    root = ElementTree.fromstring(out.encode())
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "3", "2", "1")
    suites = {suite.get("name"): suite for suite in root}
    assert list(suites) == ["_tests/broken.yaml", "_tests/review.yaml"]
    cases = {case.get("name"): case for case in suites["_tests/review.yaml"]}
    branch = cases["a branch"]
    assert (branch.get("file"), branch.get("line"), branch.get("classname")) == ("_tests/review.yaml", "1", "_tests/review.yaml")
    [failure] = branch.findall("failure")
    assert failure.get("message").startswith("_tests/review.yaml:8: every channel (8): the rendered text differs")
    assert "+Check branch of main, quick." in failure.text
    [error] = suites["_tests/broken.yaml"].find("testcase").findall("error")
    assert "did you mean guide://_review?" in error.get("message")


def test_a_pattern_selects_scenarios_by_file_or_name(docroot, capsys):
    assert json.loads(run(capsys, docroot, "uncommit", "--format", "json")[1])["summary"]["scenarios"] == 1
    assert json.loads(run(capsys, docroot, "_tests/rev*", "--format", "json")[1])["summary"]["scenarios"] == 2
    status = main(["test", str(docroot), "no such scenario"])
    assert status == 2 and "no scenario matches 'no such scenario'" in capsys.readouterr().err


def test_a_docroot_without_scenarios_or_not_a_folder_cannot_run(tmp_path, capsys):
    write_files(tmp_path, {"_commands/a.md": "A.\n"})
    assert main(["test", str(tmp_path)]) == 2
    assert "no scenario in" in capsys.readouterr().err
    assert main(["test", str(tmp_path / "nothing")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_control_characters_in_a_scenario_never_reach_the_terminal(docroot, capsys):
    write_files(docroot, {"_tests/review.yaml": '"red \\e[31m name":\n  read: guide://_reveiw\n  expect: {text: x}\n'})
    status, out = run(capsys, docroot)
    assert status == 2 and "\x1b" not in out and "red \\x1b[31m name" in out


def test_the_bundled_example_and_the_starter_docroot_pass(tmp_path, capsys):
    status, out = run(capsys, EXAMPLE)
    assert status == 0, out
    assert main(["init", str(tmp_path / "starter")]) == 0
    capsys.readouterr()
    status, out = run(capsys, tmp_path / "starter")
    assert status == 0, out
    assert out.splitlines()[-1].startswith("4 passed (4 scenarios in ")


@pytest.mark.slow
def test_the_bundled_example_passes_over_stdio_against_guide_serve_processes():
    done = subprocess.run([sys.executable, "-m", "guide", "test", str(EXAMPLE), "--server", "stdio", "--format", "json"],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["summary"]["passed"] == report["summary"]["scenarios"] == len(report["scenarios"]) > 10
    channels = {name for scenario in report["scenarios"] for name in scenario["channels"]}
    assert channels >= {f"{client}/{era}" for client in ("forms", "apps", "agent", "keywords", "url") for era in ("legacy", "2026-07-28")}
