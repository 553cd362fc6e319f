"""Issue 17: hostile or damaged files in Guide's cache folder never crash a read or a check, hang, or change what is served.

Each case of the review has its test: a kept parse of the wrong JSON type, a
kept report of the wrong type, a FIFO, a symlink and `/dev/zero` at a kept
file's path, a folder others may write or that another user owns, and a planted
record. The fuzz test then throws arbitrary contents at the kept files.
"""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st
from support.fuzzing import fuzz

from guide.docroot.folder import Docroot
from guide.docroot.lint import checked, fingerprint, lint
from guide.docroot.store import parses, reports
from guide.docroot.store.disk import KEY_FILE, Store
from guide.errors import GuideError
from guide.forms.step import Render, step
from guide.routes.finish import finish
from guide.routes.lookup import AddressRead, Call, resolve
from guide.server.app import create_server
from robustness.hostile import fifo, symlink, write_docroot

REPO = Path(__file__).resolve().parents[2]
DESCRIPTION = "Every field type, with a branch."
"""The description of `_commands/ask.md` in the suite's docroot: what a listing must show whatever the cache holds."""


@pytest.fixture
def root(tmp_path) -> Path:
    return write_docroot(tmp_path / "docroot")


@pytest.fixture
def folder(tmp_path) -> Path:
    return tmp_path / "cache"


def check(root: Path, folder: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """`guide check` in a process of its own, keeping files in `folder` (a hang fails the test at `timeout`)."""
    env = {**os.environ, "GUIDE_CACHE_DIR": str(folder), "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "guide", "check", str(root)], capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)


def kept(folder: Path, kind: str, root: Path) -> Path:
    return Store(folder).path(kind, str(root.resolve()))


def kept_body(path: Path):
    return json.loads(path.read_bytes().partition(b"\n")[2])


def clean(done: subprocess.CompletedProcess) -> None:
    """A check that ran to its end and printed its report: the suite's docroot has two notes and no error."""
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines()[-1].startswith("ok, 2 notes: commands=5"), done.stdout


def plant(record: list) -> None:
    """Make a kept parse record say another description, in the mapping and in the listing's summary kept beside it."""
    kept = parses.Record._make(record)
    meta = json.loads(kept.mapping)
    meta["description"] = "PLANTED"
    record[:] = kept._replace(mapping=json.dumps(meta), description="PLANTED")


def served_description(root: Path, folder: Path) -> str:
    """What a listing says of `_commands/ask.md`, with the kept parses loaded at once (as for a large docroot)."""
    docroot = Docroot(root, store=Store(folder))
    docroot.parses.load_after = 0
    return dict(docroot.build().descriptions("command"))["ask"]


@pytest.mark.parametrize("damage", ["payload is a mapping", "record is a mapping", "files is a list", "stamp is text"])
def test_17_a_kept_parse_of_the_wrong_json_type_is_dropped_and_rewritten(root, folder, damage):
    clean(check(root, folder))
    path = kept(folder, parses.KIND, root)
    document = kept_body(path)
    rel = "_commands/ask.md"
    if damage == "payload is a mapping":
        document["files"][rel] = list(parses.Record._make(document["files"][rel])._replace(mapping={}, error={}))
    elif damage == "record is a mapping":
        document["files"][rel] = {}
    elif damage == "files is a list":
        document["files"] = []
    else:
        document["files"][rel] = list(parses.Record._make(document["files"][rel])._replace(ino="12"))
    Store(folder).save(parses.KIND, str(root.resolve()), document)  # sealed as Guide itself would: only the types are wrong
    kept(folder, reports.KIND, root).unlink()  # so the check parses again instead of printing the kept report
    clean(check(root, folder))
    assert served_description(root, folder) == DESCRIPTION
    record = kept_body(path)["files"][rel]
    assert parses._restore(parses._well_formed(record)).meta["description"] == DESCRIPTION  # rewritten


@pytest.mark.parametrize("report", [[], {"fingerprint": None, "report": []}, "a report", {"errors": "x"}])
def test_17_a_kept_report_of_the_wrong_type_is_checked_again(root, folder, report):
    first = check(root, folder)
    clean(first)
    built = Docroot(root, store=Store(folder)).build()
    document = report if not isinstance(report, dict) or "fingerprint" not in report else {**report, "fingerprint": fingerprint(built), "texts": {}}
    Store(folder).save(reports.KIND, str(root.resolve()), document)
    again = check(root, folder)
    clean(again)
    assert again.stdout == first.stdout


@pytest.mark.parametrize("kind", [parses.KIND, reports.KIND])
def test_17_a_fifo_at_a_kept_path_is_not_waited_on_and_is_replaced(root, folder, kind):
    clean(check(root, folder))
    path = kept(folder, kind, root)
    path.unlink()
    fifo(path)
    clean(check(root, folder, timeout=60))  # a read of the FIFO would wait for a writer forever
    assert path.is_file() and not path.is_symlink()


@pytest.mark.parametrize("kind", [parses.KIND, reports.KIND])
def test_17_a_symlink_to_dev_zero_at_a_kept_path_is_not_read_and_is_replaced(root, folder, kind):
    clean(check(root, folder))
    path = kept(folder, kind, root)
    path.unlink()
    symlink(path, "/dev/zero")
    clean(check(root, folder, timeout=60))  # following it would read without end
    assert path.is_file() and not path.is_symlink()


def test_17_a_symlink_at_a_kept_path_is_replaced_never_written_through(root, folder, tmp_path):
    clean(check(root, folder))
    outside = tmp_path / "outside.txt"
    outside.write_text("not Guide's\n")
    path = kept(folder, parses.KIND, root)
    path.unlink()
    symlink(path, outside)
    (root / "_commands/withpartial.md").write_text("---\ndescription: Changed.\nincludes: [shared]\n---\nW\n")  # so the next check has parses to keep
    clean(check(root, folder))
    assert outside.read_text() == "not Guide's\n"
    assert path.is_file() and not path.is_symlink()


def test_17_a_folder_others_may_write_is_not_used(root, folder, caplog):
    clean(check(root, folder))
    planted = kept_body(kept(folder, parses.KIND, root))
    plant(planted["files"]["_commands/ask.md"])
    Store(folder).save(parses.KIND, str(root.resolve()), planted)  # with the folder's own key: only the folder's mode is wrong
    folder.chmod(0o777)
    caplog.set_level(logging.WARNING, logger="guide")
    assert served_description(root, folder) == DESCRIPTION
    message = " ".join(record.getMessage() for record in caplog.records)
    assert f"chmod go-w {folder}" in message and "not used" in message


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_17_a_folder_another_user_owns_is_not_used(root, folder, caplog):
    clean(check(root, folder))
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, 65534, 65534)
    caplog.set_level(logging.WARNING, logger="guide")
    assert served_description(root, folder) == DESCRIPTION
    assert "belongs to another user" in caplog.text


async def test_17_a_planted_record_never_reaches_a_client(root, folder, monkeypatch, mode):
    clean(check(root, folder))
    path = kept(folder, parses.KIND, root)
    planted = kept_body(path)
    plant(planted["files"]["_commands/ask.md"])
    header = path.read_bytes().partition(b"\n")[0]
    path.write_bytes(header + b"\n" + json.dumps(planted).encode())  # the header of a real file, the body of another: the MAC fails
    (folder / KEY_FILE).write_bytes(b"k" * 32) if mode == "legacy" else None  # or a planted key: every kept file fails
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(folder))
    async with Client(create_server(root, watch=False), mode=mode) as client:
        listed = {str(resource.uri): resource.description for resource in await client.list_resources()}
    assert listed["guide://_ask"] == DESCRIPTION


# ---------------------------------------------------------------- fuzzing the kept files

JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=10,
)


@pytest.fixture(scope="module")
def primed(tmp_path_factory):
    """The suite's docroot and the kept files a check leaves for it (copied for each case)."""
    base = tmp_path_factory.mktemp("store")
    root = write_docroot(base / "docroot")
    clean(check(root, base / "cache"))
    built = Docroot(root, store=Store(None)).build()
    return root, {kind: kept(base / "cache", kind, root).read_bytes() for kind in (parses.KIND, reports.KIND)}, dict(built.descriptions("command"))


def _damaged(data, real: bytes, key: bytes) -> tuple[bytes, bool]:
    """Contents for a kept file, and whether they carry a valid seal (as if Guide's own code had written them)."""
    how = data.draw(st.sampled_from(["bytes", "flip", "cut", "sealed json", "sealed record"]))
    if how == "bytes":
        return data.draw(st.binary(max_size=200)), False
    if how == "flip":
        at = data.draw(st.integers(0, len(real) - 1))
        return real[:at] + bytes([real[at] ^ data.draw(st.integers(1, 255))]) + real[at + 1:], False
    if how == "cut":
        return real[: data.draw(st.integers(0, len(real) - 1))], False
    body = json.loads(real.partition(b"\n")[2])
    if how == "sealed json":
        body = data.draw(st.one_of(JSON, st.fixed_dictionaries({"root": st.just(body.get("root")), "files": JSON})))
    elif isinstance(body.get("files"), dict) and body["files"]:
        rel = data.draw(st.sampled_from(sorted(body["files"])))
        record = body["files"][rel]
        record[data.draw(st.integers(0, len(record) - 1))] = data.draw(JSON)
    else:
        body["report"] = data.draw(JSON)
    return body, True


@fuzz(60)
@given(data=st.data())
def test_fuzz_kept_files_never_crash_a_read_or_a_check_or_change_what_is_listed(primed, tmp_path_factory, data):
    root, real, descriptions = primed
    folder = tmp_path_factory.mktemp("fuzzed")
    store = Store(folder)
    key = store._ready()
    sealed_any = False
    for kind, contents in real.items():
        store.save(kind, str(root.resolve()), json.loads(contents.partition(b"\n")[2]))  # the real files, sealed with this folder's key
        damaged, sealed = _damaged(data, store.path(kind, str(root.resolve())).read_bytes(), key)
        sealed_any |= sealed
        if sealed:
            store.save(kind, str(root.resolve()), damaged)
        else:
            store.path(kind, str(root.resolve())).write_bytes(damaged)
    docroot = Docroot(root, store=Store(folder))
    built = docroot.build()
    listed = dict(built.descriptions("command"))
    if not sealed_any:  # only Guide's own seal can vouch for a kept parse
        assert listed == descriptions
    report = checked(built, docroot.store)
    assert report.summary["commands"] == len(built.layout.commands)
    assert lint(Docroot(root, store=Store(None)).build()).problems == report.problems or sealed_any
    for uri in ("guide://_ask?mode=quick&count=2&verbose=true&pick=x", "guide://_plain", "guide://_help"):
        try:
            found = resolve(built, AddressRead(uri))
            if isinstance(found, Call):
                outcome = step(found.request(can_elicit=False, active_phase=None))
                if isinstance(outcome, Render):
                    finish(found, outcome, None)
        except GuideError:
            pass
    docroot.keep_parses()
