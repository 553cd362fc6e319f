"""C5: `guide check DOCROOT [--format json]` lists every authoring error with file and line."""

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
from support.files import write_files
from support.terminal import interruptible

from guide.cli import main
from guide.examples import DOCROOT

EXAMPLE = DOCROOT

FORM = """---
description: {description}
{head}elicitation:
  {form}:
    message: Say.
    schema:
      type: object
      properties:
        {field}: {{type: string}}
---
Body.
"""

BROKEN = {
    "guide.yaml": "flags: {team: data}\nworkflows: {}\n",
    "_commands/good.md": FORM.format(description="Fine.", head="includes: [notes]\n", form="target", field="mode"),
    "_commands/yaml.md": "---\ndescription: ok\nusage: a: b\n---\nbody\n",
    "_commands/forms.md": (
        "---\ndescription: two mistakes\nelicitation:\n  f:\n    message: Say.\n    schema:\n      type: object\n"
        "      properties:\n        count: {type: integer, minimum: 5, maximum: 1}\n      required: [count, label]\n---\nbody\n"
    ),
    "_partials/notes.md": "---\nelicitation:\n  notes:\n    message: ''\n    schema: {type: object, properties: {text: {type: string}}}\n---\nNotes.\n",
    "_skills/Bad/SKILL.md": "s\n",
    "_skills/ok/SKILL.md": "---\nname: okay\n---\nb\n",
    "docs/style.md": "# Style\n",
}

EXPECTED = [
    ("_commands/forms.md", 9, "f", "count", "field 'count': `minimum` (5) is greater than `maximum` (1)"),
    ("_commands/forms.md", 10, "f", "label", "`required` names 'label', which this form does not declare"),
    ("_commands/yaml.md", 3, None, None, "frontmatter is not valid YAML: mapping values are not allowed in this context"),
    ("_partials/notes.md", 4, "notes", None, "a form needs a non-empty string `message`"),
    ("_skills/Bad/SKILL.md", None, None, None, "skill folder name 'Bad' must be 1-64 of a-z, 0-9 and '-', without leading, trailing or doubled '-'"),
    ("_skills/ok/SKILL.md", 2, None, None, "skill `name` 'okay' must equal its folder name 'ok'"),
    ("guide.yaml", 2, None, None, "unknown key `workflows`; did you mean `workflow`? (accepted: flags, workflow, lists, url-hosts, collections, instructions, clients)"),
]


def check(capsys, *argv):
    status = main(["check", *map(str, argv)])
    return status, capsys.readouterr()


def test_c5_check_lists_every_error_with_file_and_line(tmp_path, capsys):
    status, out = check(capsys, write_files(tmp_path, BROKEN))
    assert status == 1
    lines = out.out.splitlines()
    expected = []
    for path, line, form, _, message in EXPECTED:
        where = f"{path}:{line}" if line else path
        expected.append(f"{where}: form {form}: {message}" if form else f"{where}: {message}")
    assert lines[:-1] == expected
    assert lines[-1] == "7 errors; commands=3 skills=1 partials=1 documents=1 forms=1"


def test_c5_check_json_shape(tmp_path, capsys):
    status, out = check(capsys, write_files(tmp_path, BROKEN), "--format", "json")
    assert status == 1
    report = json.loads(out.out)
    assert list(report) == ["errors", "notes", "summary"]
    assert all(list(error) == ["path", "line", "form", "field", "message"] for error in report["errors"])
    assert [tuple(error.values()) for error in report["errors"]] == EXPECTED
    assert report["summary"] == {"commands": 3, "skills": 1, "partials": 1, "documents": 1, "forms": 1}


def test_c5_check_as_a_separate_process(tmp_path):
    script = Path(sys.executable).parent / "guide"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "guide"]
    done = subprocess.run([*command, "check", str(write_files(tmp_path, BROKEN)), "--format", "json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert [error["path"] for error in json.loads(done.stdout)["errors"]] == [e[0] for e in EXPECTED]


def test_c5_check_bundled_example_is_clean(capsys):
    status, out = check(capsys, EXAMPLE)
    assert status == 0 and out.out.startswith("ok: commands=")
    status, out = check(capsys, EXAMPLE, "--format", "json")
    report = json.loads(out.out)
    assert status == 0 and report["errors"] == []
    assert report["summary"]["commands"] >= 1 and report["summary"]["skills"] >= 1


def test_c5_check_clean_docroot_counts_what_it_read(tmp_path, capsys):
    docroot = write_files(tmp_path, {
        "_commands/a.md": FORM.format(description="A.", head="includes: [p]\n", form="fa", field="xa"),
        "_commands/b.md": FORM.format(description="B.", head="includes: [p]\n", form="fb", field="xb"),
        "_partials/p.md": FORM.format(description="P.", head="", form="shared", field="xp"),
        "_skills/s/SKILL.md": "---\nname: s\n---\nb\n",
        "index.md": "i",
    })
    status, out = check(capsys, docroot, "--format", "json")
    assert status == 0
    # The partial's form counts once although two commands include it.
    assert json.loads(out.out) == {"errors": [], "notes": [], "summary": {"commands": 2, "skills": 1, "partials": 1, "documents": 1, "forms": 3}}


def test_c5_one_broken_file_is_enough_to_fail(tmp_path, capsys):
    shutil.copytree(EXAMPLE, tmp_path / "docroot")
    write_files(tmp_path / "docroot", {"_commands/extra.md": FORM.format(description="X.", head="", form="f", field="_hidden")})
    status, out = check(capsys, tmp_path / "docroot")
    assert status == 1
    assert out.out.splitlines()[0].startswith("_commands/extra.md:9: form f: field name '_hidden' cannot start with '_'")


def test_check_refuses_a_path_that_is_not_a_folder(tmp_path, capsys):
    status, out = check(capsys, tmp_path / "missing")
    assert status == 2 and "is not a folder" in out.err and out.out == ""


def test_c5_check_survives_a_when_on_a_field_of_a_broken_form(tmp_path, capsys):
    text = (
        "---\nelicitation:\n  a:\n    schema: {type: object, properties: {x: {type: string, enum: [p]}}}\n"
        "  b:\n    message: m\n    when: {x: p}\n    schema: {type: object, properties: {y: {type: string}}}\n---\nb\n"
    )
    status, out = check(capsys, write_files(tmp_path, {"_commands/c.md": text}), "--format", "json")
    assert status == 1
    assert [(e["form"], e["message"]) for e in json.loads(out.out)["errors"]] == [("a", "a form needs a non-empty string `message`")]


def test_c5_check_reports_errors_of_a_gated_partial(tmp_path, capsys):
    partial = "---\nrequires-team: data\nelicitation:\n  notes:\n    schema: {type: object, properties: {t: {type: string}}}\n---\nN.\n"
    docroot = write_files(tmp_path, {
        "guide.yaml": "flags: {team: platform}\n",
        "_partials/notes.md": partial,
        "_commands/c.md": "---\nincludes: [notes]\n---\nb\n",
    })
    status, out = check(capsys, docroot)
    assert status == 1 and out.out.startswith("_partials/notes.md:4: form notes: a form needs a non-empty string `message`")


def test_c5_check_reports_errors_of_a_partial_nobody_includes(tmp_path, capsys):
    partial = "---\nelicitation:\n  notes:\n    message: m\n    schema: {type: object, properties: {t: {type: strin}}}\n---\nN.\n"
    status, out = check(capsys, write_files(tmp_path, {"_partials/notes.md": partial}))
    assert status == 1 and out.out.startswith("_partials/notes.md:5: form notes: field 't'")


# --- guide check --watch ------------------------------------------------------------------------

WATCH_TIMEOUT = 30


def _watch(docroot, *extra) -> pexpect.spawn:
    args = ["-m", "guide", "check", str(docroot), "--watch", *extra]
    return pexpect.spawn(sys.executable, args, encoding="utf-8", timeout=WATCH_TIMEOUT, dimensions=(50, 200), preexec_fn=interruptible)


def test_check_watch_checks_again_after_each_change_until_ctrl_c(tmp_path):
    docroot = write_files(tmp_path, {"_commands/a.md": FORM.format(description="A.", head="", form="fa", field="xa")})
    child = _watch(docroot)
    child.expect(r"ok: commands=1 ")
    child.expect("watching")
    write_files(docroot, {"_commands/b.md": FORM.format(description="B.", head="", form="fb", field="_bad")})
    child.expect("changed: _commands/b.md")
    child.expect(r"_commands/b.md:9: form fb: field name '_bad' cannot start with '_'")
    child.expect(r"1 error; commands=2 ")
    write_files(docroot, {"_commands/b.md": FORM.format(description="B.", head="", form="fb", field="good")})
    child.expect(r"ok: commands=2 ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


def test_check_watch_json_prints_one_report_per_line(tmp_path):
    docroot = write_files(tmp_path, {"index.md": "i"})
    child = _watch(docroot, "--format", "json")
    child.expect(r"\{.*\}\r\n")
    first = json.loads(child.match.group(0))
    child.expect("watching")
    write_files(docroot, {"notes/limits.json": "{}"})
    child.expect(r"\{.*\}\r\n")
    second = json.loads(child.match.group(0))
    child.sendintr()
    child.expect(pexpect.EOF)
    assert first == {"errors": [], "notes": [], "summary": {"commands": 0, "skills": 0, "partials": 0, "documents": 1, "forms": 0}}
    assert second["summary"]["documents"] == 2


def test_check_watch_of_a_missing_folder_says_so(tmp_path, capsys):
    status, out = check(capsys, tmp_path / "missing", "--watch")
    assert status == 2 and "is not a folder" in out.err


def test_check_counts_text_json_and_yaml_documents_as_served(tmp_path, capsys):
    docroot = write_files(tmp_path, {"index.md": "i", "notes/on-call.txt": "t", "data/limits.json": "{}", "data/owners.yaml": "a: 1", "logo.png": "x"})
    status, out = check(capsys, docroot, "--format", "json")
    assert status == 0
    assert json.loads(out.out)["summary"]["documents"] == 4


def test_files_left_out_on_purpose_are_notes(tmp_path, capsys):
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    root = tmp_path / "docroot"
    (root / "lang").mkdir(parents=True)
    (root / "lang" / "leak.md").symlink_to(outside)
    assert main(["check", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "note: lang/leak.md: file is a symlink to a file outside the docroot; it is not served"
    assert main(["check", str(root), "--strict"]) == 1


def test_check_watch_shows_control_characters_in_a_changed_name_instead_of_sending_them(tmp_path):
    """Issue 25, finding 12: a file's name went to the terminal raw, so a name could set the window title or clear the screen."""
    docroot = write_files(tmp_path, {"index.md": "i"})
    child = _watch(docroot)
    shown = io.StringIO()
    child.logfile_read = shown
    child.expect("watching")
    (docroot / "x\x1b]0;PWNED\x07\x1b[2J.md").write_text("x", encoding="utf-8")
    child.expect(r"changed: x\\x1b\]0;PWNED\\x07\\x1b\[2J\.md")
    child.expect(r"ok: ")
    child.sendintr()
    child.expect(pexpect.EOF)
    assert "\x1b]0;" not in shown.getvalue() and "\x07" not in shown.getvalue() and "\x1b[2J" not in shown.getvalue()


def test_check_watch_does_not_walk_folder_links(tmp_path):
    """Issue 25, finding 3: the watch followed folder links the check never reads; a diamond of 18 folders linking twice to the next
    (2**18 paths) kept it from ever saying it was watching. Now it watches the folders the check walks, and sees edits in them."""
    docroot = write_files(tmp_path, {"index.md": "i"})
    for level in range(18):
        (docroot / f"d{level}").mkdir()
    for level in range(17):
        for link in ("left", "right"):
            (docroot / f"d{level}/{link}").symlink_to(docroot / f"d{level + 1}", target_is_directory=True)
    child = _watch(docroot)
    child.expect(r"ok, 34 notes: ")
    child.expect("watching")
    write_files(docroot, {"d17/page.md": "p"})
    child.expect("changed: d17/page.md")
    child.expect(r"ok, 34 notes: commands=0 skills=0 partials=0 documents=2 ")
    child.sendintr()
    child.expect(pexpect.EOF)
