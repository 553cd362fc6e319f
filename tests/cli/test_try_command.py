"""`guide try`: a real MCP client in a real pseudo-terminal, and with an answers file."""

import json
import subprocess
import sys

import pexpect
import pytest

from guide.examples import DOCROOT

PROTOCOLS = ["legacy", "2026-07-28"]
TIMEOUT = 30


def _spawn(uri: str, protocol: str) -> pexpect.spawn:
    args = ["-m", "guide", "try", uri, "--docroot", str(DOCROOT), "--protocol", protocol]
    return pexpect.spawn(sys.executable, args, encoding="utf-8", timeout=TIMEOUT, dimensions=(50, 200))


def _answer_form(child: pexpect.spawn, form: str) -> None:
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("a")
    if form == "target":
        child.expect("uncommitted")
        child.sendline("2")
    elif form == "depth":
        child.expect(r"default 1")
        child.sendline("")
    elif form == "reference":
        child.expect("Branch or pull request")
        child.sendline("bad ref")
        child.expect("does not match the pattern")
        child.sendline("feature/x")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_branch_flow_answered_at_the_terminal_with_one_correction(protocol):
    child = _spawn("guide://_review", protocol)
    asked = []
    for _ in range(3):
        child.expect(r"Form (target|depth|reference)")
        asked.append(child.match.group(1))
        _answer_form(child, asked[-1])
    child.expect(pexpect.EOF)
    child.close()
    assert sorted(asked) == ["depth", "reference", "target"]
    assert asked.index("target") < asked.index("reference")
    assert "# Review: branch" in child.before
    assert "Compare `feature/x`" in child.before
    assert "Review depth: **quick**" in child.before
    assert child.exitstatus == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_declined_form_ends_with_a_clear_error(protocol):
    child = _spawn("guide://_review?depth=quick", protocol)
    child.expect("Form target")
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("d")
    child.expect("form target was declined")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1


def _run(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "guide", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_answers_file_accepts_declines_and_cancels(tmp_path, protocol):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"target": {"mode": "pull-request"}, "reference": {"reference": "pr/42"}}))
    done = _run("try", "guide://_review", "--protocol", protocol, "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    assert "Compare `pr/42`" in done.stdout
    assert "No depth was chosen, so this is a quick pass." in done.stdout  # depth missing from the file: cancelled

    answers.write_text(json.dumps({"target": "decline"}))
    declined = _run("try", "guide://_review", "--protocol", protocol, "--answers", str(answers))
    assert declined.returncode == 1
    assert "form target was declined" in declined.stderr


def test_answers_file_with_a_wrong_shape_is_refused(tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"target": "maybe"}))
    done = _run("try", "guide://_review", "--answers", str(answers))
    assert done.returncode == 2
    assert '"decline" or "cancel"' in done.stderr


def test_without_a_terminal_the_form_prompts_fail_clearly():
    done = _run("try", "guide://_review")
    assert done.returncode == 1
    assert "pass --answers FILE.json" in done.stderr
