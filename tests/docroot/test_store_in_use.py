"""C2 (issue: large docroots): the parse cache as Guide uses it: check and serve reuse what another process parsed."""

import asyncio
import os
import sys

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from support.files import write_files

import guide.docroot.lint as lint_module
from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.docroot.store import parses
from guide.docroot.store.disk import Store
from guide.server.report import start_line
from guide.server.settings import open_docroot, read_settings

FILES = {
    "_commands/review.md": "---\ndescription: Review.\nelicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {mode: {type: string}}}\n---\nR {{kwargs.mode}}\n",
    "_commands/notes.md": "---\ndescription: Notes.\n---\nN\n",
    "_partials/footer.md": "---\ndescription: Footer.\n---\nF\n",
    "_skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage.\n---\nT\n",
}


def fresh(root, folder, load_after=0) -> Docroot:
    """A docroot as a new process sees it: its kept parses loaded from the cache folder (after `load_after` direct parses)."""
    docroot = Docroot(root, store=Store(folder))
    docroot.parses.load_after = load_after
    return docroot


def served(root) -> Docroot:
    """The docroot as `guide serve --docroot ROOT` opens it: its store where the settings (here GUIDE_CACHE_DIR) put it."""
    return open_docroot(read_settings({"docroot": root}))


def saved(tmp_path):
    """FILES written, and their parses saved in a cache folder as a first process leaves them: (root, folder)."""
    folder = tmp_path / "cache"
    root = write_files(tmp_path / "docroot", FILES)
    first = fresh(root, folder)
    lint(first.build())
    first.keep_parses()
    return root, folder


def test_guide_check_leaves_a_cache_the_next_process_uses_without_parsing(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(folder))
    root = write_files(tmp_path / "docroot", FILES)
    assert main(["check", str(root)]) == 0
    docroot = fresh(root, folder)  # where GUIDE_CACHE_DIR puts it, as the next `guide check` or `guide serve` reads it
    assert lint(docroot.build()).problems == []
    assert (docroot.parses.parsed, docroot.parses.reused) == (0, len(FILES))


def test_one_edited_file_costs_one_parse(tmp_path):
    root, folder = saved(tmp_path)
    write_files(root, {"_commands/notes.md": "---\ndescription: Edited notes.\n---\nN2\n"})
    second = fresh(root, folder)
    assert second.build().command("notes").description == "Edited notes."
    lint(second.build())
    assert (second.parses.parsed, second.parses.reused) == (1, len(FILES) - 1)


def test_deleted_and_renamed_files_are_dropped_and_read_anew(tmp_path):
    root, folder = saved(tmp_path)
    (root / "_commands" / "notes.md").unlink()
    (root / "_partials" / "footer.md").rename(root / "_partials" / "signature.md")
    second = fresh(root, folder)
    snapshot = second.build()
    assert snapshot.command("notes") is None and "signature" in snapshot.partials
    lint(snapshot)
    assert (second.parses.parsed, second.parses.reused) == (1, 2)


def test_two_servers_starting_at_once_on_one_docroot_both_serve(tmp_path, monkeypatch):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))  # empty: both parse and both save
    root = write_files(tmp_path / "docroot", FILES)
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}

    async def read_once() -> str:
        args = ["-m", "guide", "serve", "--docroot", str(root)]
        transport = StdioTransport(command=sys.executable, args=args, env=env, cwd=str(tmp_path))
        async with Client(transport) as client:
            await client.list_resource_templates()  # builds every entrypoint: each server parses every file
            return (await client.read_resource("guide://_review?mode=quick"))[0].text

    async def both() -> list[str]:
        return await asyncio.gather(read_once(), read_once())

    assert asyncio.run(both()) == ["R quick\n", "R quick\n"]
    docroot = fresh(root, tmp_path / "cache")
    kept = docroot.store.size(parses.KIND, docroot.parses.name) is not None
    lint(docroot.build())
    assert docroot.parses.reused + docroot.parses.parsed == len(FILES)
    # The parses either process kept are usable: what the servers parsed is reused (the partial no request
    # needed is parsed by them only if their start check ran before the clients left). Whether a server
    # kept anything depends on how soon its client stopped it (the SDK ends a server 2 s after it closes
    # its input), so a run on a loaded machine may keep nothing: then nothing is reused, and nothing broke.
    assert docroot.parses.reused >= (len(FILES) - 1 if kept else 0)


def test_an_unchanged_docroot_is_checked_from_the_kept_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    root = write_files(tmp_path / "docroot", {**FILES, "_commands/typo.md": "---\nelicitaton: {}\n---\nx\n", "notes.md": "n\n"})
    assert main(["check", str(root)]) == 1
    first = capsys.readouterr().out
    monkeypatch.setattr(lint_module, "lint", lambda snapshot: pytest.fail("the docroot was linted again"))
    assert main(["check", str(root)]) == 1
    assert capsys.readouterr().out == first


def test_a_starting_server_and_guide_check_share_the_kept_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    root = write_files(tmp_path / "docroot", {**FILES, "_commands/typo.md": "---\nelicitaton: {}\n---\nx\n"})
    assert start_line(served(root)).endswith(f"1 authoring error (`guide check {root}` lists them)")
    monkeypatch.setattr(lint_module, "lint", lambda snapshot: pytest.fail("the docroot was linted again"))
    assert main(["check", str(root)]) == 1  # the report the server's start check kept
    assert "elicitaton" in capsys.readouterr().out
    assert "1 authoring error" in start_line(served(root))  # and a restarted server reads it too


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "_commands" / "notes.md").write_text("---\ndescription: Notez.\n---\nN\n"),  # same size
        lambda root: (root / "notes.md").write_text("---\nelicitation: {f: {message: M, schema: {}}}\n---\nn\n"),
        lambda root: (root / "guide.yaml").write_text("flags: {team: sre}\n"),
        lambda root: (root / "_partials" / "footer.md").unlink(),
    ],
    ids=["template text", "document", "guide.yaml", "a file removed"],
)
def test_any_change_is_checked_again(tmp_path, monkeypatch, capsys, change):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    root = write_files(tmp_path / "docroot", {**FILES, "notes.md": "n\n"})
    assert main(["check", str(root)]) == 0
    capsys.readouterr()
    change(root)
    linted = []
    real_lint = lint_module.lint
    monkeypatch.setattr(lint_module, "lint", lambda snapshot: linted.append(1) or real_lint(snapshot))
    main(["check", str(root)])
    assert linted == [1]


def test_a_corrupt_kept_report_is_checked_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    root = write_files(tmp_path / "docroot", FILES)
    assert main(["check", str(root)]) == 0
    for kept in (tmp_path / "cache" / "reports").glob("*.json"):
        kept.write_text("{not json")
    capsys.readouterr()
    assert main(["check", str(root)]) == 0
    assert capsys.readouterr().out.startswith("ok")


def test_a_server_answering_one_question_parses_what_it_needs_and_leaves_the_cache_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(parses, "SMALL_BYTES", 0)  # as with a large docroot's cache
    root, folder = saved(tmp_path)
    docroot = fresh(root, folder, load_after=10)
    assert docroot.build().command("notes").description == "Notes."
    assert (docroot.parses.parsed, docroot.parses.reused) == (1, 0)  # one file parsed, the stored parses never loaded
    kept = docroot.store.path(parses.KIND, str(root.resolve()))
    written = kept.stat().st_mtime_ns
    docroot.keep_parses(if_loaded=True)  # what a server does as it stops
    assert docroot.parses._loaded is None, "saving one parse must not load the whole cache"
    assert kept.stat().st_mtime_ns == written


def test_a_server_that_parsed_every_file_saves_them_for_the_next(tmp_path):
    folder = tmp_path / "cache"
    root = write_files(tmp_path / "docroot", FILES)
    server = fresh(root, folder, load_after=10)
    lint(server.build())
    server.keep_parses(if_loaded=True)
    following = fresh(root, folder)
    lint(following.build())
    assert following.parses.parsed == 0


def test_a_render_parses_only_the_partials_it_includes(tmp_path):
    root = write_files(tmp_path / "docroot", {**FILES, "_partials/unused.md": "---\ndescription: Unused.\n---\nU\n"})
    docroot = fresh(root, tmp_path / "cache", load_after=10)
    built = docroot.build()
    assert built.partial_body("footer") == "F\n"
    assert docroot.parses.parsed == 1
    assert sorted(built.partials) == ["footer", "unused"]
