"""The store's kept parses: reuse across processes, invalidation, damage, concurrency, fallback (issues 11, 17).

Tests count parses (files that had to be parsed), never time. Files written by
a test are "racy" (changed within two seconds), so their kept parses are used
after their text is read and matched; `test_an_old_file_is_listed_without_reading_it`
shows the case of a file changed long before.
"""

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from support.files import same, write_files

from guide.docroot.filework import Files
from guide.docroot.folder import Docroot
from guide.docroot.frontmatter import FrontmatterError, Parsed, split
from guide.docroot.store import parses as parses_module
from guide.docroot.store.disk import Store

REPO = Path(__file__).resolve().parents[2]

FILES = {
    "_commands/review.md": "---\ndescription: Review.\nelicitation:\n  f:\n    message: Say.\n    schema: {type: object}\n---\n# Review {{x}}\n",
    "_commands/plain.md": "No frontmatter at all.\n",
    "_commands/crlf.md": "---\r\ndescription: Windows lines.\r\n---\r\nBody\r\n",
    "_commands/dots.md": "---\ndescription: Closed with dots.\n...\nBody after dots.\n",
    "_commands/empty.md": "---\n---\nEmpty frontmatter.\n",
    "_commands/typed.md": textwrap.dedent("""\
        ---
        due: 2026-09-30
        at: 2026-09-30 12:30:00+02:00
        naive: 2026-09-30T12:30:00
        blob: !!binary aGVsbG8=
        tags: !!set {a, b}
        ordered: !!omap [{x: 1}, {y: 2}]
        numbers: {1: one, 2.5: two, true: yes, null: none}
        "!": bang
        floats: [.inf, -.inf, 1e-300, -0.0]
        big: 123456789012345678901234567890
        ---
        Typed values.
        """),
    "_commands/broken.md": "---\ndescription: [unclosed\n---\nBody\n",
    "_commands/open.md": "---\ndescription: never closed\n",
    "_commands/list.md": "---\n- not\n- a mapping\n---\nBody\n",
    "_skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up.\n---\nSkill body.\n",
    "_commands/bang.md": '---\n"!": not a tag\ndescription: R&D\n---\nBody\n',
    "_commands/anchors.md": "---\nbase: &b {type: string}\nother: *b\nmerged: {<<: *b, title: T}\n---\nBody\n",
}

RUN_CACHE = """
import json, sys
from pathlib import Path
from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store
root, folder = Path(sys.argv[1]), Path(sys.argv[2])
docroot = Docroot(root, store=Store(folder))
docroot.parses.load_after = 0
built = docroot.build()
for rel in sys.argv[3:]:
    built.parsed(rel)
docroot.keep_parses()
print(json.dumps({"parsed": docroot.parses.parsed, "reused": docroot.parses.reused}))
"""

# Many overlapping writes: each process keeps only its own files, so every save rewrites the kept file.
RACE_CACHE = """
import sys
from pathlib import Path
from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store
root, folder, rels = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
for _ in range(15):
    docroot = Docroot(root, store=Store(folder))
    docroot.parses.load_after = 0
    built = docroot.build()
    for rel in rels:
        built.parsed(rel)
    docroot.parses.save(keep=rels)
"""


def write_docroot(root: Path, files: dict[str, str] = FILES) -> Path:
    return write_files(root, {f"_commands/{rel}" if "/" not in rel else rel: text for rel, text in files.items()})


def opened(root: Path, folder: Path | None) -> Docroot:
    """The docroot as a new process opens it, keeping parses in `folder` (None: nothing kept)."""
    docroot = Docroot(root, store=Store(folder))
    docroot.parses.load_after = 0
    return docroot


def read_all(docroot: Docroot, rels=None) -> dict:
    """Parse every file, as a check or a render does."""
    built = docroot.build()
    return {rel: built.parsed(rel) for rel in rels or FILES}


def same_parse(got, want) -> bool:
    if isinstance(want, FrontmatterError):
        return isinstance(got, FrontmatterError) and (str(got), got.line) == (str(want), want.line)
    fields = ("body", "yaml_text", "first_line", "body_line")
    return isinstance(got, Parsed) and same(dict(got.meta), dict(want.meta)) and all(getattr(got, f) == getattr(want, f) for f in fields)


def expected(root: Path, rel: str):
    try:
        return split((root / rel).read_bytes().decode("utf-8-sig"))
    except FrontmatterError as error:
        return error


def run_process(root: Path, folder: Path, rels=None) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN_CACHE, str(root), str(folder), *(rels or FILES)],
                          cwd=REPO, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def kept_file(folder: Path) -> Path:
    return next((folder / parses_module.KIND).glob("*.json"))


def kept_document(folder: Path) -> dict:
    header, _, body = kept_file(folder).read_bytes().partition(b"\n")
    return json.loads(body)


def rewrite_kept(folder: Path, document: dict) -> None:
    """Replace the kept parses with `document`, sealed with the folder's own key (as Guide itself would write it)."""
    Store(folder).save(parses_module.KIND, document["root"], document)


@pytest.fixture
def root(tmp_path):
    return write_docroot(tmp_path / "docroot")


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "cache"


def test_a_cache_written_by_one_process_is_used_by_the_next(root, folder):
    assert run_process(root, folder) == {"parsed": len(FILES), "reused": 0}
    assert run_process(root, folder) == {"parsed": 0, "reused": len(FILES)}


def test_a_reused_parse_equals_a_fresh_one(root, folder):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    second = opened(root, folder)
    restored = read_all(second)
    assert second.parses.parsed == 0
    for rel, got in restored.items():
        assert same_parse(got, expected(root, rel)), rel


def test_an_edited_file_is_parsed_again_even_with_the_same_size_and_mtime(root, folder):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    path = root / "_commands/review.md"
    before = path.stat()
    path.write_text(path.read_text().replace("Review.", "Weiver."), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime: only the text (and the change time) differs
    again = opened(root, folder)
    found = read_all(again)
    assert (again.parses.parsed, again.parses.reused) == (1, len(FILES) - 1)
    assert found["_commands/review.md"].meta["description"] == "Weiver."


def test_a_touched_file_is_parsed_again(root, folder):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    path = root / "_commands/plain.md"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    again = opened(root, folder)
    read_all(again)
    assert (again.parses.parsed, again.parses.reused) == (1, len(FILES) - 1)


def test_an_old_file_is_listed_without_reading_it(root, folder, monkeypatch):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    monkeypatch.setattr(parses_module, "RACY_NS", -10**18)  # as if every file had been written long before it was read
    again = opened(root, folder)
    reads = []
    real_read = Files._read
    monkeypatch.setattr(Files, "_read", lambda self, rel: reads.append(rel) or real_read(self, rel))
    built = again.build()
    assert built.command("review").description == "Review."
    assert reads == [] and again.parses.reused == 1
    assert built.parsed("_commands/review.md").body == "# Review {{x}}\n"  # the body is read when it is needed
    assert reads == ["_commands/review.md"] and again.parses.parsed == 0


def test_deleted_and_renamed_files(root, folder):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    (root / "_commands/plain.md").unlink()
    (root / "_commands/crlf.md").rename(root / "_commands/windows.md")
    rels = [rel for rel in FILES if rel not in ("_commands/plain.md", "_commands/crlf.md")] + ["_commands/windows.md"]
    again = opened(root, folder)
    read_all(again, rels)
    assert (again.parses.parsed, again.parses.reused) == (1, len(FILES) - 2)
    again.keep_parses()
    assert set(kept_document(folder)["files"]) == set(rels)


@pytest.mark.parametrize("damage", [
    b"",
    b"\x00\xff not json",
    b'{"format": 2',
    b"[1, 2, 3]",
    b'{"format": 2, "producer": "0.0.1", "mac": "00"}\n{"root": "/", "files": {}}',
])
def test_a_corrupt_or_foreign_cache_is_ignored_and_rewritten(root, folder, damage):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    kept_file(folder).write_bytes(damage)
    again = opened(root, folder)
    found = read_all(again)
    assert again.parses.parsed == len(FILES)
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    again.keep_parses()
    assert run_process(root, folder) == {"parsed": 0, "reused": len(FILES)}


def test_a_cache_from_another_guide_version_is_ignored(root, folder, monkeypatch):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    monkeypatch.setattr("guide.docroot.store.disk.producer", lambda: "99.0:other-code")
    again = opened(root, folder)
    read_all(again)
    assert again.parses.parsed == len(FILES)
    again.keep_parses()
    assert json.loads(kept_file(folder).read_bytes().partition(b"\n")[0])["producer"] == "99.0:other-code"


def test_a_damaged_entry_is_parsed_again_and_replaced(root, folder):
    first = opened(root, folder)
    read_all(first)
    first.keep_parses()
    document = kept_document(folder)
    files, Record = document["files"], parses_module.Record
    review = Record._make(files["_commands/review.md"])
    files["_commands/review.md"] = list(review._replace(mapping="{}", yaml_start=0, yaml_end=10**9, body_start=0))  # the YAML ends past the body
    files["_commands/dots.md"] = files["_commands/dots.md"][:6] + ["nonsense"]
    files["_commands/plain.md"] = list(Record._make(files["_commands/plain.md"])._replace(mapping=[], tagged="x", first_line={}, body_line=None))
    rewrite_kept(folder, document)
    again = opened(root, folder)
    found = read_all(again)
    assert again.parses.parsed == 3
    assert same_parse(found["_commands/review.md"], expected(root, "_commands/review.md"))
    again.keep_parses()
    assert run_process(root, folder) == {"parsed": 0, "reused": len(FILES)}


def test_alias_bombs_and_self_containing_values_are_refused_and_the_refusal_kept(tmp_path, folder):
    layers = ["a0: &a0 [x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 8)}]" for i in range(1, 7)]
    files = {"_commands/bomb.md": "---\n" + "\n".join(layers) + "\n---\nBody\n", "_commands/loop.md": "---\nloop: &l [*l]\n---\nBody\n"}
    root = write_docroot(tmp_path / "docroot", files)
    for parsed in (2, 0):
        docroot = opened(root, folder)
        found = read_all(docroot, list(files))
        docroot.keep_parses()
        assert docroot.parses.parsed == parsed
        assert all(isinstance(result, FrontmatterError) and "aliases expand" in str(result) for result in found.values())


def test_two_processes_writing_at_once_both_leave_a_valid_cache(tmp_path, folder):
    many = {f"_commands/g{i}/{rel.split('/')[-1]}": text for i in range(20) for rel, text in FILES.items()}
    root = write_docroot(tmp_path / "docroot", many)
    rels = sorted(many)
    halves = (set(rels[: len(rels) // 2]), set(rels[len(rels) // 2:]))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", RACE_CACHE, str(root), str(folder), *sorted(half)], cwd=REPO, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for half in halves]
    seen = []
    while any(proc.poll() is None for proc in procs):  # a reader meanwhile only ever sees one writer's whole file
        found = next((folder / parses_module.KIND).glob("*.json"), None) if (folder / parses_module.KIND).is_dir() else None
        if found is not None:
            seen.append(set(json.loads(found.read_bytes().partition(b"\n")[2])["files"]))
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    kept = list((folder / parses_module.KIND).iterdir())
    assert len(kept) == 1 and kept[0].suffix == ".json"  # no temporary file left behind
    stored = kept_document(folder)["files"]
    assert all(keys in halves for keys in seen + [set(stored)])
    after = opened(root, folder)
    found = read_all(after, rels)
    assert after.parses.reused == len(stored) and after.parses.parsed == len(rels) - len(stored)
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())


def test_an_unwritable_location_falls_back_to_no_cache_with_one_log_line(root, tmp_path, caplog):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    caplog.set_level(logging.WARNING, logger="guide")
    for _ in range(2):
        docroot = opened(root, blocker / "cache")
        for _ in range(2):
            found = read_all(docroot)
            docroot.keep_parses()
        assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    assert docroot.parses.parsed == len(FILES)
    assert len([r for r in caplog.records if "cache folder" in r.getMessage()]) == 1  # one line per folder and process
    assert blocker.is_file()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="permissions do not bind root")
def test_a_read_only_folder_falls_back_to_no_cache(root, folder, caplog):
    folder.mkdir(parents=True)
    folder.chmod(0o500)
    caplog.set_level(logging.WARNING, logger="guide")
    docroot = opened(root, folder)
    read_all(docroot)
    docroot.keep_parses()
    docroot.keep_parses()
    assert len([r for r in caplog.records if "cache folder" in r.getMessage()]) == 1
    assert list(folder.iterdir()) == []


def test_one_cache_file_per_docroot_by_its_real_path(root, folder, tmp_path):
    other = write_docroot(tmp_path / "other")
    link = tmp_path / "link"
    link.symlink_to(root)
    for where in (root, link, other):
        docroot = opened(where, folder)
        read_all(docroot)
        docroot.keep_parses()
    assert len(list((folder / parses_module.KIND).glob("*.json"))) == 2
    assert opened(link, folder).parses.name == opened(root, folder).parses.name


def test_a_turned_off_cache_parses_and_writes_nothing(root, tmp_path):
    docroot = opened(root, None)
    read_all(docroot)
    docroot.keep_parses()
    again = opened(root, None)
    read_all(again)
    assert again.parses.parsed == len(FILES)
    assert not any(tmp_path.rglob("*.json"))


def test_saving_on_one_thread_while_another_parses(tmp_path, folder):
    many = {f"_commands/g{i}/{rel.split('/')[-1]}": text for i in range(20) for rel, text in FILES.items()}
    root = write_docroot(tmp_path / "docroot", many)
    docroot = opened(root, folder)
    errors = []

    def saver():
        try:
            for _ in range(30):
                docroot.keep_parses()
        except Exception as error:  # reported below: the test fails on any
            errors.append(error)

    thread = threading.Thread(target=saver)
    thread.start()
    found = read_all(docroot, sorted(many))
    thread.join()
    docroot.keep_parses()
    assert not errors
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    again = opened(root, folder)
    read_all(again, sorted(many))
    assert (again.parses.parsed, again.parses.reused) == (0, len(many))


def test_files_first_looked_up_after_a_save_still_use_the_kept_parses(root, folder):
    """A restarted server whose start check saves (nothing new) while its first full listing looks files up parses nothing."""
    run_process(root, folder)
    docroot = opened(root, folder)
    built = docroot.build()
    first, rest = list(FILES)[:3], list(FILES)[3:]
    for rel in first:
        built.parsed(rel)
    docroot.keep_parses(if_loaded=True)  # what the start check does once it has logged the start line
    for rel in rest:
        built.parsed(rel)
    assert (docroot.parses.parsed, docroot.parses.reused) == (0, len(FILES))
