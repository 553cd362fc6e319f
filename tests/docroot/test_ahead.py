"""`guide check` parsing files ahead in worker processes finds what parsing each in turn finds, and keeps the same parses."""

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from support.files import write_files

from guide.docroot.ahead import LEAST_FILES, parse_ahead
from guide.docroot.folder import Docroot
from guide.docroot.frontmatter import FrontmatterError
from guide.docroot.lint import checked
from guide.docroot.store import parses as parses_module
from guide.docroot.store.disk import Store

FORM = "---\ndescription: Command {n}.\nelicitation:\n  f:\n    message: Say.\n    schema:\n      type: object\n      properties:\n        x: {{type: integer, minimum: 1}}\n---\n# {{{{kwargs.x}}}} {n}\n"
FILES = {
    **{f"_commands/c{n:02}.md": FORM.format(n=n) for n in range(12)},
    "_commands/plain.md": "No frontmatter at all.\n",
    "_commands/broken.md": "---\ndescription: [unclosed\n---\nBody\n",
    "_commands/open.md": "---\ndescription: never closed\n",
    "_commands/twice.md": "---\ndescription: A.\ndescription: B.\n---\nBody\n",
    "_commands/anchors.md": "---\nbase: &b {type: string}\nother: *b\nmerged: {<<: *b, title: T}\ndescription: R&D\n---\nBody\n",
    "_commands/typed.md": "---\ndue: 2026-09-30\nblob: !!binary aGVsbG8=\ntags: !!set {a, b}\nnumbers: {1: one, true: yes}\n---\nBody\n",
    "_commands/big.md": "---\ndescription: Too large to read.\n---\n" + "x" * 5000 + "\n",
    "_commands/uses.md": "---\ndescription: Uses a partial.\nincludes: [shared]\n---\n{{>shared}}\n",
    "_partials/shared.md": "---\ndescription: Shared.\n---\nShared {{missing.name}}\n",
    "_skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up.\n---\nSkill body.\n",
}


def check(root, cache, workers):
    """The report of a check with `workers` processes (files parsed ahead when above 1), and the parses it kept."""
    docroot = Docroot(root, max_file_size=4096, store=Store(cache))
    report = checked(docroot.build(), docroot.store, workers)
    docroot.keep_parses()
    kept = Store(cache).load(parses_module.KIND, str(docroot.root))
    records = {rel: parses_module.Record(*fields)._replace(read_ns=0) for rel, fields in kept["files"].items()}  # when each was read differs
    return report.as_json(), records


def test_files_parsed_in_worker_processes_give_the_report_and_the_kept_parses_of_files_parsed_in_turn(tmp_path):
    root = write_files(tmp_path / "docroot", FILES)
    report, kept = check(root, tmp_path / "ahead", workers=2)
    in_turn, kept_in_turn = check(root, tmp_path / "in-turn", workers=1)
    assert report == in_turn and report["errors"]  # broken, open, twice, big and the partial's missing name are reported
    assert kept == kept_in_turn and len(kept) == len(FILES) - 1  # every file but the one too large to read


def test_every_unread_file_is_parsed_ahead_and_noted_as_its_own_read_notes_it(tmp_path):
    root = write_files(tmp_path / "docroot", FILES)
    ahead, in_turn = Docroot(root, max_file_size=4096).build(), Docroot(root, max_file_size=4096).build()
    assert len(ahead.files.unread()) == len(ahead.snapshot.sources)
    assert parse_ahead(ahead.files, 2, least=1) == len(ahead.snapshot.sources)
    for rel in in_turn.snapshot.sources:
        assert ahead.front(rel) == in_turn.front(rel), rel
        assert ahead.files.work(rel).digest == in_turn.files.work(rel).digest, rel
    assert ahead.files.unread() == [] and parse_ahead(ahead.files, 2, least=1) == 0  # nothing is parsed twice


def test_few_files_or_one_core_parse_nothing_ahead(tmp_path):
    root = write_files(tmp_path / "docroot", FILES)
    built = Docroot(root).build()
    assert parse_ahead(built.files, 1, least=1) == 0
    assert parse_ahead(built.files, 2) == 0  # fewer than LEAST_FILES: the workers would cost more than they save
    assert len(built.files.unread()) == len(built.snapshot.sources)


def test_a_frontmatter_error_comes_back_from_a_worker_whole():
    error = FrontmatterError("frontmatter is not valid YAML: found x", 3)
    again = pickle.loads(pickle.dumps(error))
    assert again == error and again.line == 3 and json.dumps(str(again)) == json.dumps(str(error))


@pytest.mark.parametrize("entry", ["script", "module"])
def test_guide_check_of_a_large_docroot_parses_in_several_processes_and_reports_as_one_would(tmp_path, entry):
    """The real command, started as people start it: the workers must start from its entry point (and a failure to would say so)."""
    many = {f"_commands/g{n // 100:02}/c{n:04}.md": FORM.format(n=n) for n in range(LEAST_FILES)}
    root = write_files(tmp_path / "docroot", {**many, "_commands/broken.md": FILES["_commands/broken.md"]})
    script = Path(sys.executable).parent / "guide"
    if entry == "script" and not script.exists():
        pytest.skip("no guide script beside this interpreter")
    command = [str(script)] if entry == "script" else [sys.executable, "-m", "guide"]
    done = subprocess.run([*command, "check", str(root), "--format", "json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GUIDE_NO_CACHE": "1"})
    assert "parsing ahead" not in done.stderr, done.stderr
    found = json.loads(done.stdout)
    in_turn, _ = check(root, tmp_path / "in-turn", workers=1)
    assert done.returncode == 1 and found["errors"] == in_turn["errors"] and len(found["errors"]) == 1
