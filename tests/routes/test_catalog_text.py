"""The catalog for tool-only agents (issue 26): bounded, made once per snapshot, building only the entrypoints it shows."""

from guide.docroot.built import ENTRYPOINTS
from guide.docroot.folder import Docroot
from guide.docroot.memo import UNBUILT
from guide.examples import DOCROOT
from guide.routes.catalog import MAX_ENTRIES, catalog


def test_the_example_catalog_names_each_entrypoint_with_the_keywords_it_needs():
    text = catalog(Docroot(DOCROOT).build())
    assert "- guide://_review: Review a change: uncommitted work, a branch or a pull request. Needs mode=<uncommitted|branch|pull-request>; " \
           "reference=<string> if mode is branch or pull-request." in text
    assert "- guide://$workflow-review: Review work at the end of a workflow phase, with a checklist. Needs mode=<branch|phase>; " in text
    assert text.endswith("guide://_help lists them with the documents; guide://_help/<command> describes one.")


def test_a_large_docroot_builds_only_the_entrypoints_the_catalog_shows_and_once_per_snapshot(tmp_path):
    for number in range(MAX_ENTRIES * 4):
        path = tmp_path / "_commands" / f"c{number:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndescription: Command {number}.\n---\nC\n")
    built = Docroot(tmp_path).build()
    text = catalog(built)
    assert catalog(built) is text  # a value of the snapshot
    shown = [name for name in built.names("command") if built.made(ENTRYPOINTS, ("command", name)) is not UNBUILT]
    assert shown == built.names("command")[:MAX_ENTRIES]
    assert text.endswith(f"... and {MAX_ENTRIES * 3} more: see guide://_help for all of them.")


def test_an_empty_docroot_says_so(tmp_path):
    assert catalog(Docroot(tmp_path).build()) == "The docroot has no commands or skills yet; guide://_help lists its documents."
