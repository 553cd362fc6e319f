"""The build of a snapshot (issue 17): the one place that keeps what was made, safe for worker threads, carried across edits."""

import dataclasses
import functools
import threading

import pytest
from support.files import write_files

import guide.docroot.filework as filework_module
from guide.docroot.built import EVERY
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot
from guide.docroot.memo import UNBUILT, Kept, Once
from guide.docroot.snapshot import Snapshot, Source
from guide.docroot.store.disk import Store
from guide.routes.finish import RENDERS

FILES = {
    "_commands/a.md": "---\ndescription: A.\n---\nA {{>p}}\n",
    "_commands/b.md": "---\ndescription: B.\n---\nB\n",
    "_partials/p.md": "---\ndescription: P.\n---\nP\n",
}


@pytest.mark.parametrize("value", [Snapshot, Source, Entrypoint])
def test_17_snapshots_sources_and_entrypoints_are_plain_records(value):
    assert dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen
    kept = [name for name, member in vars(value).items() if isinstance(member, (functools.cached_property, functools._lru_cache_wrapper))]
    assert kept == [], f"{value.__name__} keeps {kept}"
    assert all(not callable(field.default_factory) or field.default_factory is dataclasses.MISSING for field in dataclasses.fields(value))


def test_17_two_threads_parse_two_files_at_the_same_time(tmp_path, monkeypatch):
    root = write_files(tmp_path / "docroot", FILES)
    built = Docroot(root, store=Store(None)).build()
    both_inside = threading.Barrier(2, timeout=30)  # each parse waits here for the other: serialised parses would never meet
    real_split = filework_module.split

    def split(text):
        both_inside.wait()
        return real_split(text)

    monkeypatch.setattr(filework_module, "split", split)
    results, errors = {}, []

    def parse(rel):
        try:
            results[rel] = built.parsed(rel).meta["description"]
        except Exception as error:  # reported below
            errors.append(error)

    workers = [threading.Thread(target=parse, args=(rel,)) for rel in ("_commands/a.md", "_commands/b.md")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == [] and results == {"_commands/a.md": "A.", "_commands/b.md": "B."}


def test_17_an_edit_keeps_what_was_made_of_the_other_files(tmp_path, monkeypatch):
    root = write_files(tmp_path / "docroot", FILES)
    docroot = Docroot(root, store=Store(None))
    first = docroot.build()
    assert [e.description for e in first.every("command")] == ["A.", "B."]
    parsed = []
    real_split = filework_module.split
    monkeypatch.setattr(filework_module, "split", lambda text: parsed.append(text) or real_split(text))
    write_files(root, {"_commands/b.md": "---\ndescription: B, edited.\n---\nB\n"})
    docroot.invalidate([root / "_commands/b.md"])
    second = docroot.build()
    assert second is not first and second.made(EVERY, "command") is UNBUILT  # what depends on the whole snapshot starts afresh
    assert [e.description for e in second.every("command")] == ["A.", "B, edited."]
    assert len(parsed) == 1  # only the edited file is parsed again


def test_33_a_rebuild_neither_reads_nor_inspects_an_unchanged_file_again(tmp_path, monkeypatch):
    """The stress run's hostile variant: every rebuild of an edit storm had read and tokenized an 800 KB partial again (+30 MB of RSS)."""
    root = write_files(tmp_path / "docroot", {**FILES, "_partials/wide.md": "x\n" * 400_000})
    docroot = Docroot(root, store=Store(None))
    first = docroot.build()
    assert first.template("_partials/wide.md").lines == 400_000 and first.parsed("_commands/a.md").meta["description"] == "A."
    inspected, read = [], []
    real_inspect, real_read = filework_module.inspect, filework_module.files.read_text
    monkeypatch.setattr(filework_module, "inspect", lambda body: inspected.append(len(body)) or real_inspect(body))
    monkeypatch.setattr(filework_module.files, "read_text", lambda root, rel, *rest, **named: read.append(rel) or real_read(root, rel, *rest, **named))
    for edit in range(3):
        write_files(root, {"_commands/b.md": f"---\ndescription: B {edit}.\n---\nB {{{{x}}}}\n"})
        docroot.invalidate([root / "_commands/b.md"])
        built = docroot.build()
        assert built.template("_partials/wide.md").lines == 400_000 and built.template("_commands/b.md").references == ()
        assert built.parsed("_commands/a.md").meta["description"] == "A."
    assert read == ["_commands/b.md"] * 3 and len(inspected) == 3  # only the edited file, once per build


def test_17_built_made_and_recall_never_build(tmp_path, monkeypatch):
    root = write_files(tmp_path / "docroot", FILES)
    docroot = Docroot(root, store=Store(None))
    assert docroot.built() is None
    built = docroot.build()
    assert docroot.built() is built
    anything: Once[int] = Once("anything")
    assert built.made(anything) is UNBUILT and built.recall(RENDERS, "key") is UNBUILT
    assert built.value(anything, lambda: 42) == 42 and built.made(anything) == 42 and built.made(anything, "a key") is UNBUILT
    docroot.invalidate()
    assert docroot.built() is None


def test_17_a_bounded_memo_forgets_its_oldest_value(tmp_path, monkeypatch):
    two: Kept[str] = Kept("two texts", 2, 1000)
    built = Docroot(write_files(tmp_path / "docroot", FILES), store=Store(None)).build()
    for key in ("a", "b", "c"):
        built.remember(two, key, key.upper())
    assert [built.recall(two, key) for key in ("a", "b", "c")] == [UNBUILT, "B", "C"]
    assert built.recall(RENDERS, "b") is UNBUILT  # each declaration has a memo of its own
