"""`guide try`: a real MCP client in a real pseudo-terminal, and with an answers file."""

import io
import json
import os
import subprocess
import sys
import textwrap

import pexpect
import pytest
from support.terminal import interruptible

from guide.examples import DOCROOT

PROTOCOLS = ["legacy", "2026-07-28"]
TIMEOUT = 30


def _spawn(uri: str, protocol: str, docroot=DOCROOT, env=None) -> pexpect.spawn:
    args = ["-m", "guide", "try", uri, "--docroot", str(docroot), "--protocol", protocol]
    return pexpect.spawn(sys.executable, args, encoding="utf-8", timeout=TIMEOUT, dimensions=(50, 200), env=env, preexec_fn=interruptible)


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


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_declining_the_first_form_stops_there_without_asking_the_others(protocol):
    # On 2026-07-28 the first round holds both target and depth; after the decline depth is not shown.
    child = _spawn("guide://_review", protocol)
    child.expect("Form target")
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("d")
    child.expect(pexpect.EOF)
    child.close()
    assert "form target was declined" in child.before
    assert "Form depth" not in child.before and "Form reference" not in child.before
    assert child.exitstatus == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_ctrl_c_at_a_prompt_exits_at_once_with_130(protocol):
    child = _spawn("guide://_review", protocol)
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("a")
    child.expect(r"> \(number\)")
    child.sendintr()
    # Nothing more is typed: before the fix the process waited for the field to be answered.
    child.expect(pexpect.EOF, timeout=TIMEOUT)
    child.close()
    assert "guide try: interrupted" in child.before
    assert child.exitstatus == 130


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("where", ["action", "field"])
def test_ctrl_d_cancels_the_current_form(protocol, where):
    child = _spawn("guide://_review?mode=uncommitted", protocol)
    child.expect("Form depth")
    child.expect(r"Accept, decline or cancel this form\?")
    if where == "field":
        child.sendline("a")
        child.expect(r"default 1")
    child.sendeof()
    child.expect("Form cancelled")
    child.expect(pexpect.EOF)
    child.close()
    assert "No depth was chosen, so this is a quick pass." in child.before  # cancelled: its default stands in
    assert child.exitstatus == 0


SCHEDULE = """\
    ---
    elicitation:
      slot:
        message: When does the incident review start?
        schema:
          type: object
          properties:
            at: {type: string, format: date-time, title: Start}
            ticket: {type: string, pattern: "INC-[0-9]+", title: Ticket}
          required: [at, ticket]
    ---
    AT {{kwargs.at}} TICKET {{kwargs.ticket}}
    """


@pytest.mark.parametrize(("typed", "sent"), [("2026-12-01 10:00", "2026-12-01T10:00:00+02:00"), ("2026-12-01T10:00:30Z", "2026-12-01T10:00:30+00:00")])
def test_date_time_says_its_format_takes_local_time_or_an_offset_and_a_pattern_failure_shows_the_pattern(tmp_path, typed, sent):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "schedule.md").write_text(textwrap.dedent(SCHEDULE))
    child = _spawn("guide://_schedule", "2026-07-28", docroot=tmp_path, env={**os.environ, "TZ": "EET-2"})
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("a")
    child.expect(r"YYYY-MM-DD HH:MM\[:SS\], local time or with an offset such as Z or \+02:00")
    child.sendline("next tuesday")
    child.expect(r"'next tuesday' is not a valid date-time; it accepts a string in date-time format")
    child.sendline(typed)
    child.expect("Ticket")
    child.sendline("12")
    child.expect(r"'12' does not match the pattern; it accepts a string matching INC-\[0-9\]\+")
    child.sendline("INC-7")
    child.expect(pexpect.EOF)
    child.close()
    assert f"AT {sent} TICKET INC-7" in child.before
    assert child.exitstatus == 0


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


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"tagret": {"mode": "branch"}}, "guide try: the answers file names form tagret, which guide://_review does not have; did you mean target? (its forms: target, reference, depth)"),
        ({"target": {"mode": "sideways"}}, "guide try: the answers file's answer to form target is not accepted: field mode: sideways is not one of the choices; it accepts one of: uncommitted, branch, pull-request"),
        ({"target": {"mode": "branch"}, "reference": {"reference": "bad ref"}}, "guide try: the answers file's answer to form reference is not accepted: field reference: 'bad ref' does not match the pattern; it accepts a string matching [A-Za-z0-9._/-]+"),
    ],
)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_mistake_in_the_answers_file_is_one_readable_line(tmp_path, protocol, answers, message):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    done = _run("try", "guide://_review", "--protocol", protocol, "--answers", str(path))
    assert done.returncode in (1, 2) and done.stdout == ""
    assert done.stderr.splitlines() == [message]


def test_try_takes_keywords_from_set_as_render_does():
    done = _run("try", "guide://_review", "--set", "mode=branch", "--set", "reference=feature/x", "--set", "depth=thorough")
    assert done.returncode == 0, done.stderr
    assert "Compare `feature/x`" in done.stdout and "Review depth: **thorough**" in done.stdout


def test_piped_error_lines_are_never_wrapped():
    reference = "feature/" + "a-long-branch-name-" * 6
    done = _run("try", f"guide://_review?mode=sideways&reference={reference}")
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["guide try: invalid keyword mode: sideways is not one of the choices; it accepts one of: uncommitted, branch, pull-request"]
    long = _run("try", f"guide://_review?mode=branch&reference={reference}%20x")
    assert len(long.stderr.splitlines()) == 1 and len(long.stderr) > 120


def test_try_refuses_a_docroot_that_is_not_a_folder(tmp_path):
    done = _run("try", "guide://_review", "--docroot", str(tmp_path / "missing"))
    assert done.returncode == 2 and done.stderr.strip() == f"guide try: {tmp_path / 'missing'} is not a folder"


def test_without_a_terminal_the_form_prompts_fail_clearly():
    done = _run("try", "guide://_review")
    assert done.returncode == 1
    assert "pass --answers FILE.json" in done.stderr


HOSTILE = r'''---
description: Escapes.
elicitation:
  sneaky:
    message: "Pick one.\e]0;PWNED-TITLE\a\e[2J\nSecond line"
    schema:
      type: object
      properties:
        choice:
          type: string
          title: "Choice\e[8mHIDDEN"
          description: "Copy\e]52;c;cm0gLXJmIH4=\a done"
          oneOf:
            - {const: a, title: "Alpha\e[5m"}
            - {const: b, title: Beta}
      required: [choice]
---
PICKED {{kwargs.choice}}
'''
SENT = ("\x1b]0;", "\x1b[2J", "\x1b[8m", "\x1b]52;", "\x1b[5m", "\x07")
"""What the docroot holds and a terminal would act on: window title, clear screen, hidden text, clipboard write, blinking, bell."""


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_control_characters_of_a_form_are_shown_not_sent_to_the_terminal(tmp_path, protocol):
    """Issue 25, finding 12: the form's texts reached the terminal with their escape sequences intact."""
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "sneaky.md").write_text(HOSTILE + "TAIL\x1b]0;BODY\x07\n", encoding="utf-8")
    child = _spawn("guide://_sneaky", protocol, docroot=tmp_path)
    shown = io.StringIO()
    child.logfile_read = shown
    child.expect(r"Accept, decline or cancel this form\?")
    child.sendline("a")
    child.expect(r"> \(number\)")
    child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    text = shown.getvalue()
    assert not [sequence for sequence in SENT if sequence in text], text
    for visible in (r"Pick one.\x1b]0;PWNED-TITLE\x07\x1b[2J", r"Choice\x1b[8mHIDDEN", r"Copy\x1b]52;c;cm0gLXJmIH4=\x07 done",
                    r"Alpha\x1b[5m", r"TAIL\x1b]0;BODY\x07"):
        assert visible in text, text
    assert "Second line" in text  # a message's own line breaks stay
    assert "PICKED a" in text and child.exitstatus == 0
