"""Issue 25, finding 10: a build is made from the previous one while worker threads are still at work on that one.

A listing in progress on the previous build adds per-file work while the new
build takes over what it made: the new build must be made all the same (before
the fix, taking over went through the previous build's table without its lock
and failed with `dictionary changed size during iteration`, which a client saw
as "Guide failed unexpectedly"), and what either build makes of an unchanged
file must reach the other.
"""

import functools
import sys
import threading
from collections.abc import Iterator, Mapping

import pytest
from support.files import write_files

from guide.docroot.built import Built
from guide.docroot.filework import FileWork
from guide.docroot.folder import Docroot
from guide.docroot.snapshot import Snapshot, Source
from guide.docroot.store.disk import Store

COMMANDS = 400
FILES = {f"_commands/c{index:03}.md": f"---\ndescription: Command {index}.\n---\nBody {index}\n" for index in range(COMMANDS)}
ROUNDS = 10
LATE = "_commands/c399.md"
"""A file the previous build first looks at while the new build is being made."""


@pytest.fixture
def fine_switches() -> Iterator[None]:
    """Threads switch every microsecond instead of every 5 ms, so that an unguarded step is interrupted."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


class Pausing(Mapping):
    """A snapshot's sources that, when first looked at, let another thread work and wait until it says it has (or `patience` passes)."""

    def __init__(self, sources: Mapping[str, Source], go: threading.Event, done: threading.Event, patience: float):
        self.sources, self.go, self.done, self.patience = sources, go, done, patience

    def __getitem__(self, rel: str) -> Source:
        if not self.go.is_set():
            self.go.set()
            self.done.wait(self.patience)  # with the fix, the other thread waits for this build instead: nothing to wait for
        return self.sources[rel]

    def __iter__(self):
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)


def _previous(tmp_path) -> Built:
    root = write_files(tmp_path / "docroot", FILES)
    built = Docroot(root, store=Store(None)).build()
    for index in range(10):  # a listing has begun: ten files are known
        built.front(f"_commands/c{index:03}.md")
    return built


def test_25_a_build_is_made_while_a_listing_adds_to_the_previous_one(tmp_path):
    """Deterministic: the listing adds a file to the previous build exactly while the new build takes over what that one made."""
    previous = _previous(tmp_path)
    go, done, failed = threading.Event(), threading.Event(), []

    def listing() -> None:
        go.wait(30)
        try:
            previous.front(LATE)
        except Exception as error:  # the test reports it
            failed.append(error)
        done.set()

    worker = threading.Thread(target=listing)
    worker.start()
    snapshot = previous.snapshot
    paused = Snapshot(snapshot.root, snapshot.config, snapshot.layout, Pausing(snapshot.sources, go, done, patience=2.0))
    try:
        built = Built(paused, limit=previous.files.limit, previous=previous)
    finally:
        go.set()
        worker.join(30)
    assert failed == [] and done.is_set()
    # What the previous build made of the file after this one was made is this one's too: the file is not read again.
    assert built.files.work(LATE).front is not None
    assert built.descriptions("command")[-1] == ("c399", "Command 399.")


def test_25_builds_are_made_again_and_again_from_a_build_a_listing_fills(tmp_path, fine_switches):
    """A listing of 400 commands on a fresh build while new builds are made from it, threads switching every microsecond (ten rounds).

    Before the fix, about nine rounds in ten saw builds fail (1 to 22 of some hundreds to thousands).
    """
    root = write_files(tmp_path / "docroot", FILES)
    failed: list[BaseException] = []
    builds = 0
    for _ in range(ROUNDS):
        previous = Docroot(root, store=Store(None)).build()
        listing = threading.Thread(target=_catching, args=(failed, functools.partial(previous.descriptions, "command")))
        listing.start()
        while listing.is_alive() or builds == 0:
            _catching(failed, functools.partial(Built, previous.snapshot, limit=previous.files.limit, previous=previous))
            builds += 1
        listing.join()
        assert len(previous.descriptions("command")) == COMMANDS
    assert failed == [], f"{len(failed)} of {builds} builds failed: {failed[0]!r}"


def test_25_what_two_builds_note_of_a_shared_file_is_never_lost(tmp_path, fine_switches):
    """The old build reads every frontmatter while the new one notes what each text mentions: each file's record ends with both."""
    previous = _previous(tmp_path)
    built = Built(previous.snapshot, limit=previous.files.limit, previous=previous)
    rels = sorted(FILES)
    failed: list[BaseException] = []
    threads = [
        threading.Thread(target=lambda: _catching(failed, lambda: [previous.front(rel) for rel in rels])),
        threading.Thread(target=lambda: _catching(failed, lambda: [built.declared(rel, False) for rel in reversed(rels)])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    records: list[FileWork] = [built.files.work(rel) for rel in rels]
    assert all(record is previous.files.work(rel) for record, rel in zip(records, rels)), "the two builds keep different records"
    assert all(record.front is not None and record.declared for record in records)


def _catching(failed: list[BaseException], work) -> None:
    try:
        work()
    except Exception as error:  # the test counts failures
        failed.append(error)
