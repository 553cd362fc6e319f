"""The persistent parse cache: reuse across processes, invalidation, damage, concurrency, fallback (issue 11).

Tests count parses (files the cache had to parse), never time.
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

from docroot.conftest import same, write_files
from guide.docroot.frontmatter import FrontmatterError, Parsed, split
from guide.docroot.parse_cache import CACHE_DIR_VARIABLE, NO_CACHE_VARIABLE, SUBFOLDER, ParseCache, cache_folder

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
import json, os, sys
from pathlib import Path
from guide.docroot.parse_cache import ParseCache
root, folder = Path(sys.argv[1]), Path(sys.argv[2])
cache = ParseCache(root, folder)
for rel in sys.argv[3:]:
    path = root / rel
    stat = path.stat()
    cache.parse(rel, (stat.st_mtime_ns, stat.st_size), path.read_text(encoding="utf-8-sig"))
cache.save(keep=sys.argv[3:])
print(json.dumps({"parsed": cache.parsed, "reused": cache.reused}))
"""

# Many overlapping writes: each process keeps only its own files, so every save rewrites the cache file.
RACE_CACHE = """
import sys
from pathlib import Path
from guide.docroot.parse_cache import ParseCache
root, folder, rels = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
for _ in range(15):
    cache = ParseCache(root, folder)
    for rel in rels:
        stat = (root / rel).stat()
        cache.parse(rel, (stat.st_mtime_ns, stat.st_size), (root / rel).read_text(encoding="utf-8-sig"))
    cache.save(keep=rels)
"""


def write_docroot(root: Path, files: dict[str, str] = FILES) -> Path:
    return write_files(root, files)


def read_all(cache: ParseCache, root: Path, rels=None) -> dict:
    """Parse every file through the cache, as the docroot would."""
    found = {}
    for rel in rels or FILES:
        path = root / rel
        stat = path.stat()
        found[rel] = cache.parse(rel, (stat.st_mtime_ns, stat.st_size), path.read_text(encoding="utf-8-sig"))
    return found


def same_parse(got, want) -> bool:
    if isinstance(want, FrontmatterError):
        return isinstance(got, FrontmatterError) and (str(got), got.line) == (str(want), want.line)
    fields = ("body", "yaml_text", "first_line", "body_line")
    return isinstance(got, Parsed) and same(dict(got.meta), dict(want.meta)) and all(getattr(got, f) == getattr(want, f) for f in fields)


def expected(root: Path, rel: str):
    try:
        return split((root / rel).read_text(encoding="utf-8-sig"))
    except FrontmatterError as error:
        return error


def run_process(root: Path, folder: Path, rels=None) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN_CACHE, str(root), str(folder), *(rels or FILES)],
                          cwd=REPO, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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
    first = ParseCache(root, folder)
    read_all(first, root)
    first.save()
    second = ParseCache(root, folder)
    restored = read_all(second, root)
    assert second.parsed == 0
    for rel, got in restored.items():
        assert same_parse(got, expected(root, rel)), rel


def test_an_edited_file_is_parsed_again_even_with_the_same_size_and_mtime(root, folder):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    path = root / "_commands/review.md"
    before = path.stat()
    path.write_text(path.read_text().replace("Review.", "Weiver."), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime: only the text differs
    again = ParseCache(root, folder)
    found = read_all(again, root)
    assert (again.parsed, again.reused) == (1, len(FILES) - 1)
    assert found["_commands/review.md"].meta["description"] == "Weiver."


def test_a_touched_file_is_parsed_again(root, folder):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    path = root / "_commands/plain.md"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    again = ParseCache(root, folder)
    read_all(again, root)
    assert (again.parsed, again.reused) == (1, len(FILES) - 1)


def test_deleted_and_renamed_files(root, folder):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    (root / "_commands/plain.md").unlink()
    (root / "_commands/review.md").rename(root / "_commands/renamed.md")
    rels = [rel for rel in FILES if rel not in ("_commands/plain.md", "_commands/review.md")] + ["_commands/renamed.md"]
    again = ParseCache(root, folder)
    found = read_all(again, root, rels)
    again.save(keep=rels)
    assert (again.parsed, again.reused) == (1, len(rels) - 1)
    assert found["_commands/renamed.md"].meta["description"] == "Review."
    stored = json.loads(next(folder.glob("*.json")).read_text())["files"]
    assert set(stored) == set(rels)


@pytest.mark.parametrize("damage", [
    b"",
    b"\x00\xff not json",
    b'{"producer": {"format": "1"',
    b"[1, 2, 3]",
    b'{"producer": {"format": "0", "guide": "0.0.1"}, "root": "/", "files": {}}',
])
def test_a_corrupt_or_foreign_cache_is_ignored_and_rewritten(root, folder, damage):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    cache_file = next(folder.glob("*.json"))
    cache_file.write_bytes(damage)
    again = ParseCache(root, folder)
    found = read_all(again, root)
    assert again.parsed == len(FILES)
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    again.save()
    assert run_process(root, folder) == {"parsed": 0, "reused": len(FILES)}


def test_a_cache_from_another_guide_version_is_ignored(root, folder, monkeypatch):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    monkeypatch.setattr("guide.docroot.parse_cache.__version__", "99.0")
    again = ParseCache(root, folder)
    read_all(again, root)
    assert again.parsed == len(FILES)
    again.save()
    assert json.loads(next(folder.glob("*.json")).read_text())["producer"]["guide"] == "99.0"


def test_a_damaged_entry_is_parsed_again_and_replaced(root, folder):
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    cache_file = next(folder.glob("*.json"))
    document = json.loads(cache_file.read_text())
    document["files"]["_commands/review.md"][3] = ["ok", {}, 0, 10**9, 0, 0, 2, 3]
    document["files"]["_commands/dots.md"][3] = "nonsense"
    cache_file.write_text(json.dumps(document))
    again = ParseCache(root, folder)
    found = read_all(again, root)
    assert again.parsed == 2
    assert same_parse(found["_commands/review.md"], expected(root, "_commands/review.md"))
    again.save()
    assert run_process(root, folder) == {"parsed": 0, "reused": len(FILES)}


def test_alias_bombs_and_self_containing_values_are_refused_and_the_refusal_kept(tmp_path, folder):
    layers = ["a0: &a0 [x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 8)}]" for i in range(1, 7)]
    files = {"bomb.md": "---\n" + "\n".join(layers) + "\n---\nBody\n", "loop.md": "---\nloop: &l [*l]\n---\nBody\n"}
    root = write_docroot(tmp_path / "docroot", files)
    for parsed in (2, 0):
        cache = ParseCache(root, folder)
        found = read_all(cache, root, list(files))
        cache.save()
        assert cache.parsed == parsed
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
        cache_file = next(folder.glob("*.json"), None) if folder.is_dir() else None
        if cache_file is not None:
            seen.append(set(json.loads(cache_file.read_text())["files"]))
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    files = list(folder.iterdir())
    assert len(files) == 1 and files[0].suffix == ".json"  # no temporary file left behind
    stored = json.loads(files[0].read_text())["files"]
    assert all(keys in halves for keys in seen + [set(stored)])
    after = ParseCache(root, folder)
    found = read_all(after, root, rels)
    assert after.reused == len(stored) and after.parsed == len(rels) - len(stored)
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())


def test_an_unwritable_location_falls_back_to_no_cache_with_one_log_line(root, tmp_path, caplog):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    caplog.set_level(logging.WARNING, logger="guide")
    for _ in range(2):
        cache = ParseCache(root, blocker / "cache")
        for _ in range(2):
            found = read_all(cache, root)
            cache.save()
        assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    assert cache.parsed == 2 * len(FILES)
    assert len([r for r in caplog.records if "parse cache" in r.getMessage()]) == 2  # one line per cache object
    assert blocker.is_file()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="permissions do not bind root")
def test_a_read_only_folder_falls_back_to_no_cache(root, folder, caplog):
    folder.mkdir(parents=True)
    folder.chmod(0o500)
    caplog.set_level(logging.WARNING, logger="guide")
    cache = ParseCache(root, folder)
    read_all(cache, root)
    cache.save()
    cache.save()
    assert len([r for r in caplog.records if "parse cache" in r.getMessage()]) == 1
    assert list(folder.iterdir()) == []


def test_one_cache_file_per_docroot_by_its_real_path(root, folder, tmp_path):
    other = write_docroot(tmp_path / "other")
    link = tmp_path / "link"
    link.symlink_to(root)
    for where in (root, link, other):
        cache = ParseCache(where, folder)
        read_all(cache, where)
        cache.save()
    assert len(list(folder.glob("*.json"))) == 2
    assert ParseCache(link, folder).path == ParseCache(root, folder).path


def test_where_the_cache_lives(tmp_path):
    assert cache_folder({CACHE_DIR_VARIABLE: str(tmp_path)}) == tmp_path / SUBFOLDER
    assert cache_folder({NO_CACHE_VARIABLE: "1", CACHE_DIR_VARIABLE: str(tmp_path)}) is None
    assert cache_folder({NO_CACHE_VARIABLE: "0", CACHE_DIR_VARIABLE: str(tmp_path)}) == tmp_path / SUBFOLDER
    if sys.platform.startswith("linux"):
        default = cache_folder({})
        assert default.name == SUBFOLDER and default.parent.name == "guide"


def test_a_turned_off_cache_parses_and_writes_nothing(root, tmp_path):
    cache = ParseCache(root, None)
    read_all(cache, root)
    cache.save()
    again = ParseCache(root, None)
    read_all(again, root)
    assert again.parsed == len(FILES)
    assert not any(tmp_path.rglob("*.json"))


def test_saving_on_one_thread_while_another_parses(tmp_path, folder):
    many = {f"_commands/g{i}/{rel.split('/')[-1]}": text for i in range(20) for rel, text in FILES.items()}
    root = write_docroot(tmp_path / "docroot", many)
    cache = ParseCache(root, folder)
    errors = []

    def saver():
        try:
            for _ in range(30):
                cache.save()
        except Exception as error:  # reported below: the test fails on any
            errors.append(error)

    thread = threading.Thread(target=saver)
    thread.start()
    found = read_all(cache, root, sorted(many))
    thread.join()
    cache.save()
    assert not errors
    assert all(same_parse(got, expected(root, rel)) for rel, got in found.items())
    again = ParseCache(root, folder)
    read_all(again, root, sorted(many))
    assert (again.parsed, again.reused) == (0, len(many))
