"""Issue 10, items 3, 7, 8, 9 and 10: a docroot from an untrusted source cannot leak, hang or empty the server.

Guide serves only regular files whose real path is inside the real docroot, up to
a size cap; everything else is skipped and reported (`Layout.notes`, or a problem
for a file over the cap). A file that cannot be served gives one clear line.
"""

import os
import threading
import tracemalloc

import pytest
from mcp import MCPError

from guide.docroot import files
from guide.docroot.folder import Docroot
from guide.docroot.lint import report as lint_report
from guide.errors import AuthoringError, NotFoundError
from guide.routes.finish import document_text
from guide.routes.lookup import AddressRead, Document, resolve
from robustness.hostile import bytes_name, fifo, symlink, write
from robustness.raw_stdio import RawStdio

SECRET = "TOP SECRET"


@pytest.fixture
def outside(tmp_path):
    """A folder beside the docroot holding a secret file."""
    folder = tmp_path / "outside"
    write(folder / "id_rsa", SECRET)
    write(folder / "cmd.md", "---\ndescription: from outside\n---\n" + SECRET)
    return folder


def notes_of(root, **options) -> dict[str, str]:
    layout = Docroot(root, **options).build().layout
    return {note.path: note.message for note in layout.notes}


def read(root, uri: str, **options) -> str:
    return read_from(Docroot(root, **options), uri)


def read_from(docroot: Docroot, uri: str):
    """What a read of `uri` gives: help text, a document's text, or the call of an entrypoint (raising what the read raises)."""
    found = resolve(docroot.build(), AddressRead(uri))
    return document_text(docroot, found) if isinstance(found, Document) else found


# ---------------------------------------------------------------- item 3: symlinks out of the docroot


@pytest.mark.parametrize(
    ("link", "target", "uri"),
    [
        ("lang/leak.md", "id_rsa", "guide://lang/leak"),
        ("_skills/tool-kit/id_rsa", "id_rsa", "guide://$tool-kit/id_rsa"),
        ("_commands/leak.md", "cmd.md", "guide://_leak"),
        ("_partials/leak.md", "cmd.md", None),
    ],
)
def test_a_symlink_out_of_the_docroot_is_not_served_and_is_noted(root, outside, link, target, uri):
    symlink(root / link, outside / target)
    snapshot = Docroot(root).build()
    assert "leak" not in snapshot.layout.partials
    assert notes_of(root) == {link: "file is a symlink to a file outside the docroot; it is not served"}
    if uri:
        with pytest.raises(NotFoundError):
            read_from(Docroot(root), uri)


def test_a_symlink_to_a_file_inside_the_docroot_is_served(root):
    symlink(root / "lang/py.md", root / "lang/python.md")
    symlink(root / "lang/relative.md", "python.md")
    assert read(root, "guide://lang/py") == read(root, "guide://lang/relative") == "PYTHON\n"
    assert notes_of(root) == {}


def test_a_symlink_into_the_docroot_through_its_real_path_is_served(tmp_path, root):
    alias = symlink(tmp_path / "alias", root)  # the docroot itself reached through a symlink
    symlink(root / "lang/py.md", alias / "lang/python.md")
    assert read(alias, "guide://lang/py") == "PYTHON\n"


def test_symlink_loops_and_dangling_symlinks_are_noted_not_fatal(root):
    symlink(root / "lang/loop1.md", root / "lang/loop2.md")
    symlink(root / "lang/loop2.md", root / "lang/loop1.md")
    symlink(root / "_commands/dangling.md", root / "nothing.md")
    assert notes_of(root) == {
        "_commands/dangling.md": "file is a symlink to nothing; it is not served",
        "lang/loop1.md": "file is a symlink loop; it is not served",
        "lang/loop2.md": "file is a symlink loop; it is not served",
    }
    assert read(root, "guide://lang/python") == "PYTHON\n"


def test_a_folder_symlink_is_not_followed_and_is_noted(root, outside):
    symlink(root / "secrets", outside)
    snapshot = Docroot(root).build()
    assert not any(rel.startswith("secrets") for rel in snapshot.layout.documents.values())
    assert notes_of(root) == {"secrets": "folder symlinks are not followed; its files are not served"}


# ---------------------------------------------------------------- item 8: special files and the size cap


@pytest.mark.parametrize("rel", ["_commands/fifo.md", "lang/fifo.md", "_partials/fifo.md", "_skills/tool-kit/fifo.md", "guide.yaml"])
def test_a_fifo_never_hangs_the_scan_or_a_read(root, rel):
    (root / rel).unlink(missing_ok=True)
    fifo(root / rel)
    result = []
    worker = threading.Thread(target=lambda: result.append(Docroot(root).build()), daemon=True)
    worker.start()
    worker.join(timeout=60)  # a hang fails the test instead of freezing it
    assert result, "reading the docroot hung on a FIFO"
    snapshot = result[0]
    if rel == "guide.yaml":
        assert [str(p) for p in snapshot.snapshot.config_problems] == [
            "guide.yaml: file is not a regular file; the default settings apply (no flags, no workflow)"
        ]
    else:
        assert {note.path: note.message for note in snapshot.layout.notes} == {rel: "file is not a regular file; it is not served"}


def test_a_symlink_to_a_device_is_not_read(root):
    symlink(root / "lang/zero.md", "/dev/zero")
    symlink(root / "_commands/zero.md", "/dev/zero")
    notes = notes_of(root)
    assert notes == {
        "_commands/zero.md": "file is a symlink to a file outside the docroot; it is not served",
        "lang/zero.md": "file is a symlink to a file outside the docroot; it is not served",
    }


def test_a_file_swapped_for_a_fifo_after_the_scan_is_refused_not_waited_on(root):
    docroot = Docroot(root)
    snapshot = docroot.build()
    (root / "lang/python.md").unlink()
    fifo(root / "lang/python.md")
    with pytest.raises(AuthoringError, match=r"^lang/python.md: file is not a regular file$"):
        read_from(docroot, "guide://lang/python")
    assert snapshot.layout.documents["lang/python"] == "lang/python.md"


@pytest.mark.parametrize("swap", ["file", "folder"])
def test_a_command_swapped_for_a_symlink_out_after_the_scan_is_not_read(root, outside, swap):
    docroot = Docroot(root)
    snapshot = docroot.build()
    if swap == "file":
        (root / "_commands/plain.md").unlink()
        symlink(root / "_commands/plain.md", outside / "cmd.md")
    else:
        write(outside / "nested/deep.md", "---\ndescription: from outside\n---\n" + SECRET)
        for path in sorted((root / "_commands/nested").rglob("*"), reverse=True):
            path.unlink()
        (root / "_commands/nested").rmdir()
        symlink(root / "_commands/nested", outside / "nested")
    name = "plain" if swap == "file" else "nested/deep"
    with pytest.raises(AuthoringError, match=r"file is a symlink to a file outside the docroot$"):
        read_from(docroot, f"guide://_{name}")
    assert SECRET not in repr(snapshot.command(name))


def test_files_over_the_size_cap_are_problems_and_not_served(root):
    write(root / "lang/big.md", "x" * 2000)
    write(root / "_commands/big.md", "y" * 2000)
    docroot = Docroot(root, max_file_size=1500)
    problems = [str(problem) for problem in lint_report(docroot.build())[0]]
    assert problems == [
        "_commands/big.md: file is 2000 bytes, over the limit of 1500 bytes for a served file; it is not served",
        "lang/big.md: file is 2000 bytes, over the limit of 1500 bytes for a served file; it is not served",
    ]
    with pytest.raises(NotFoundError):
        read_from(docroot, "guide://lang/big")
    assert read(root, "guide://lang/big") == "x" * 2000  # the default cap is larger


def test_a_file_that_grew_past_the_cap_after_the_scan_is_refused(root):
    docroot = Docroot(root, max_file_size=1500)
    docroot.build()
    write(root / "lang/python.md", "z" * 5000)
    with pytest.raises(AuthoringError, match=r"^lang/python.md: file is 5000 bytes, over the limit of 1500 bytes"):
        read_from(docroot, "guide://lang/python")


# ---------------------------------------------------------------- items 7, 9, 10: unreadable text and names


def test_a_guide_yaml_that_is_not_utf8_is_a_problem_and_the_rest_is_served(root):
    write(root / "guide.yaml", b"flags:\n  team: caf\xe9\n")
    snapshot = Docroot(root).build()
    assert [str(p) for p in snapshot.snapshot.config_problems] == [
        "guide.yaml: file is not UTF-8 text (byte 19 is 0xe9); the default settings apply (no flags, no workflow)"
    ]
    assert read(root, "guide://lang/python") == "PYTHON\n"
    assert read(root, "guide://_help").startswith("# Guide help")


@pytest.mark.parametrize(("rel", "uri"), [("lang/bin.md", "guide://lang/bin"), ("_skills/tool-kit/logo.png", "guide://$tool-kit/logo.png")])
def test_a_binary_document_or_member_is_one_clear_line(root, rel, uri):
    write(root / rel, b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(AuthoringError) as error:
        read_from(Docroot(root), uri)
    assert str(error.value) == f"{rel}: file is not UTF-8 text (byte 1 is 0x89)"


def test_a_document_deleted_between_scan_and_read_is_not_found(root):
    docroot = Docroot(root)
    docroot.build()
    (root / "lang/python.md").unlink()
    with pytest.raises(NotFoundError, match="^no document lang/python; "):
        read_from(docroot, "guide://lang/python")


def test_a_file_name_that_is_not_utf8_is_skipped_and_noted(root):
    bytes_name(root / "lang", b"bad\xff.md", "BAD")
    bytes_name(root / b"_commands".decode(), b"odd\xfe.md", "ODD")
    snapshot = Docroot(root).build()
    assert sorted(snapshot.layout.documents) == ["docs/readme", "lang/python"]
    message = "the name is not UTF-8 text, so no address can name it; it is not served"
    assert {note.path: note.message for note in snapshot.layout.notes} == {"lang/bad\ufffd.md": message, "_commands/odd\ufffe.md".replace("\ufffe", "\ufffd"): message}


async def test_a_file_name_that_is_not_utf8_leaves_the_listing_whole(root, connect):
    async with connect(root) as client:
        before = {str(resource.uri) for resource in await client.list_resources()}
    bytes_name(root / "lang", b"bad\xff.md", "BAD")
    async with connect(root) as client:
        after = {str(resource.uri) for resource in await client.list_resources()}
    assert after == before and len(before) == 9


async def test_symlinked_secrets_never_reach_a_client(root, outside, connect):
    symlink(root / "lang/leak.md", outside / "id_rsa")
    symlink(root / "_skills/tool-kit/id_rsa", outside / "id_rsa")
    async with connect(root) as client:
        listed = {str(resource.uri) for resource in await client.list_resources()}
        assert not any("leak" in uri or "id_rsa" in uri for uri in listed)
        for uri in ("guide://lang/leak", "guide://$tool-kit/id_rsa"):
            with pytest.raises(MCPError) as error:
                await client.read_resource(uri)
            assert SECRET not in error.value.error.message
            result = await client.call_tool("read_resource", {"uri": uri}, raise_on_error=False)
            assert result.is_error and SECRET not in result.content[0].text


def test_the_reader_refuses_what_the_scan_refuses(root, outside):
    symlink(root / "lang/leak.md", outside / "id_rsa")
    with pytest.raises(files.Refused, match="outside the docroot"):
        files.read_text(Docroot(root).root, "lang/leak.md", files.MAX_FILE_SIZE)
    with pytest.raises(files.Gone):
        files.read_text(Docroot(root).root, "lang/none.md", files.MAX_FILE_SIZE)
    assert os.path.exists(outside / "id_rsa")


def test_guide_serve_takes_the_size_cap(root, project):
    client = RawStdio(root, project, "--max-file-size", "100")
    try:
        client.initialize()
        small = client.request("resources/read", {"uri": "guide://lang/python"})
        assert client.response(small)["result"]["contents"][0]["text"] == "PYTHON\n"
        large = client.request("resources/read", {"uri": "guide://_ask?mode=quick&count=1"})
        assert client.response(large)["error"]["message"].startswith("no command ask; ")
    finally:
        client.close()


def test_reading_a_small_file_never_allocates_the_size_cap(root):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        assert files.read_text(Docroot(root).root, "lang/python.md", 64 * 1024 * 1024) == "PYTHON\n"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024  # a buffer of the cap per read fragmented the server's memory over a soak
