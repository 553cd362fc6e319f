"""`guide init DIR`: a starter docroot that passes `guide check` and serves through a real client."""

import json
import subprocess
import sys

import pytest

from guide.cli import main

PROTOCOLS = ["legacy", "2026-07-28"]
TIMEOUT = 60
STARTER = ["_commands/change.md", "_partials/verify.md", "_skills/handover/SKILL.md", "_skills/handover/template.md", "_tests/change.yaml",
           "_tests/snapshots/change-bug.md", "_tests/snapshots/handover-reviewer.md", "conventions.md", "guide.yaml"]


@pytest.fixture
def starter(tmp_path, capsys):
    """A starter docroot written by `guide init` into a folder that did not exist."""
    folder = tmp_path / "new" / "docroot"
    assert main(["init", str(folder)]) == 0
    out = capsys.readouterr()
    assert out.err == "" and f"guide check {folder}" in out.out and f"guide test {folder}" in out.out
    return folder


def files_under(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def guide(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "guide", *args], capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_init_writes_one_of_each_kind_and_guide_check_passes(starter, capsys):
    assert files_under(starter) == STARTER
    assert main(["check", str(starter), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == []
    assert report["summary"] == {"commands": 1, "skills": 1, "partials": 1, "documents": 1, "forms": 4}


def test_the_starter_command_branches_and_includes_the_partial(starter, capsys):
    assert main(["render", "guide://_change?kind=feature", "--docroot", str(starter)]) == 0
    out = capsys.readouterr()
    assert "form issue: not applicable: when kind in [bug] (it is feature)" in out.err
    assert "form checks: defaulted" in out.err
    assert out.out.startswith("# New feature\n") and "run `make test`" in out.out


def test_the_starter_member_and_document_are_served_as_written(starter, capsys):
    for uri, rel in (("guide://$handover/template.md", "_skills/handover/template.md"), ("guide://conventions", "conventions.md")):
        assert main(["render", uri, "--docroot", str(starter)]) == 0
        assert capsys.readouterr().out == (starter / rel).read_text(encoding="utf-8")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_starter_renders_through_guide_try_with_answers(starter, tmp_path, protocol):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"kind": {"kind": "bug"}, "issue": {"issue": 42}}))
    done = guide("try", "guide://_change", "--docroot", str(starter), "--protocol", protocol, "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Fix issue #42\n")
    assert "run `make test`" in done.stdout  # the partial's form is not in the file: cancelled, so its default stands
    assert "Follow the Python conventions in `guide://conventions`." in done.stdout

    answers.write_text(json.dumps({"reader": {"reader": "reviewer"}}))
    done = guide("try", "guide://$handover", "--docroot", str(starter), "--protocol", protocol, "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    assert "Write for a reviewer who has not followed the work" in done.stdout


def test_init_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "guide.yaml").write_text("flags: {mine: true}\n")
    assert main(["init", str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    assert f"guide init: {tmp_path} is not empty" in out.err and "--force" in out.err
    assert files_under(tmp_path) == ["guide.yaml"]
    assert (tmp_path / "guide.yaml").read_text() == "flags: {mine: true}\n"


def test_init_with_force_adds_the_starter_and_keeps_other_files(tmp_path, capsys):
    (tmp_path / "guide.yaml").write_text("flags: {mine: true}\n")
    (tmp_path / "notes.md").write_text("# Mine\n")
    assert main(["init", str(tmp_path), "--force"]) == 0
    out = capsys.readouterr().out
    assert "guide.yaml  (replaced)" in out and "conventions.md\n" in out
    assert files_under(tmp_path) == sorted([*STARTER, "notes.md"])
    assert (tmp_path / "notes.md").read_text() == "# Mine\n"
    assert "language: Python" in (tmp_path / "guide.yaml").read_text()


@pytest.mark.parametrize("force", [False, True])
def test_init_refuses_a_file_where_a_folder_must_go(tmp_path, capsys, force):
    (tmp_path / "taken").write_text("x")
    assert main(["init", str(tmp_path / "taken"), *(["--force"] if force else [])]) == 2
    assert capsys.readouterr().err == f"guide init: {tmp_path / 'taken'} exists and is not a folder\n"
    (tmp_path / "docroot").mkdir()
    (tmp_path / "docroot" / "_skills").write_text("x")
    assert main(["init", str(tmp_path / "docroot"), "--force"]) == 2
    assert capsys.readouterr().err == f"guide init: {tmp_path / 'docroot' / '_skills'} exists and is not a folder\n"
    assert files_under(tmp_path / "docroot") == ["_skills"]  # checked before anything was written
