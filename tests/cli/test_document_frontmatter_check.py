"""Issue 21, item 1 (C2): `guide check` reads a document's frontmatter as it reads an entrypoint's keys."""

import json

from support.files import write_files

from guide.cli import main

GATED = {
    "guide.yaml": "flags:\n  team: platform\n",
    "notes.md": "---\ndescription: Data team notes\nrequires-team: data\n---\n# Notes\n",
}


def check(capsys, *argv):
    status = main(["check", *map(str, argv)])
    return status, capsys.readouterr()


def test_21_1_a_document_that_does_not_apply_is_still_checked(tmp_path, capsys):
    assert check(capsys, write_files(tmp_path / "clean", GATED), "--strict")[0] == 0  # the example: clean, and hidden
    typo = write_files(tmp_path / "typo", {**GATED, "notes.md": "---\ndescription: Notes\nrequires-tema: data\n---\n# Notes\n"})
    status, out = check(capsys, typo)
    assert status == 1
    assert "notes.md:3: `requires-tema` names flag 'tema', which guide.yaml does not define (defined: team)" in out.out
    assert "did you mean `requires-team`?" in out.out


def test_21_1_errors_fail_the_check_and_notes_fail_it_only_when_strict(tmp_path, capsys):
    errors = write_files(tmp_path / "errors", {"bad.md": "---\ndescription: [x\n---\nB\n", "typo.md": "---\ndescriptoin: T\n---\nT\n"})
    status, out = check(capsys, errors, "--format", "json")
    report = json.loads(out.out)
    assert status == 1
    assert [(error["path"], error["line"]) for error in report["errors"]] == [("bad.md", 3), ("typo.md", 2)]
    assert report["errors"][1]["message"] == "unknown document frontmatter key `descriptoin`; did you mean `description`?"
    notes = write_files(tmp_path / "notes", {"tagged.md": "---\ndescription: Tagged\ntags: [a, b]\n---\nT\n"})
    status, out = check(capsys, notes)
    assert status == 0 and "note: tagged.md:3: frontmatter key `tags` is not one Guide reads" in out.out
    assert check(capsys, notes, "--strict")[0] == 1
