"""A restarted server lists what the last one kept when nothing changed, and makes its listings again when anything did.

Each test runs two servers one after the other over the same docroot and cache
folder, as a restart does, and compares what a client is listed with what a
server with an empty cache lists. The store is `guide.docroot.store.listings`;
the rules are `guide.server.kept_listings`.
"""

import base64
import json
import logging

import pytest

from guide.server import kept_listings
from guide.server.app import create_server

KEPT = "as the last server kept it"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    """The docroot is written by the test a moment before: its files count as settled (the racy rule is tested on its own)."""
    monkeypatch.setattr(kept_listings, "RACY_NS", 0)


async def listing(connect, server) -> str:
    """Everything a client is listed, as JSON text."""
    async with connect(server) as client:
        found = [await client.list_resources(), await client.list_resource_templates(), await client.list_prompts()]
    return json.dumps([[item.model_dump(mode="json") for item in kind] for kind in found], sort_keys=True)


def serve(docroot, cache, **settings):
    return create_server(docroot.root, project=docroot.project, watch=False, cache_dir=cache, **settings)


async def test_a_restart_with_nothing_changed_lists_what_the_last_server_kept(docroot, connect, tmp_path, caplog):
    cache = tmp_path / "cache"
    first = await listing(connect, serve(docroot, cache))
    assert list((cache / "listings").glob("*.json"))
    with caplog.at_level(logging.INFO, logger="guide"):
        again = await listing(connect, serve(docroot, cache))
    assert KEPT in caplog.text
    assert again == first
    assert again == await listing(connect, serve(docroot, tmp_path / "empty"))  # what a server making them lists


async def test_an_edit_between_servers_is_listed(docroot, connect, tmp_path, caplog):
    cache = tmp_path / "cache"
    await listing(connect, serve(docroot, cache))
    path = next((docroot.root / "_commands").rglob("*.md"))
    path.write_text(path.read_text(encoding="utf-8").replace("description:", "description: Edited,", 1), encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="guide"):
        again = await listing(connect, serve(docroot, cache))
    assert KEPT not in caplog.text
    assert "Edited," in again
    assert again == await listing(connect, serve(docroot, tmp_path / "empty"))


async def test_an_icon_file_changed_between_servers_is_listed(docroot, connect, tmp_path, caplog):
    cache = tmp_path / "cache"
    docroot.write("assets/icon.png", "")
    (docroot.root / "assets" / "icon.png").write_bytes(PNG)
    docroot.write("_commands/shown.md", "---\ndescription: Shown with an icon.\nicon: assets/icon.png\n---\nShown.\n")
    await listing(connect, serve(docroot, cache))
    (docroot.root / "assets" / "icon.png").write_bytes(PNG + b"\1")  # an icon file has no stamp in the fingerprint
    with caplog.at_level(logging.INFO, logger="guide"):
        again = await listing(connect, serve(docroot, cache))
    assert KEPT not in caplog.text
    assert base64.b64encode(PNG + b"\1").decode() in again


async def test_listings_kept_under_other_settings_are_not_restored(docroot, connect, tmp_path, caplog):
    cache = tmp_path / "cache"
    await listing(connect, serve(docroot, cache))
    with caplog.at_level(logging.INFO, logger="guide"):
        again = await listing(connect, serve(docroot, cache, projects_under=tmp_path))
    assert KEPT not in caplog.text
    assert "project" in again


async def test_a_file_changed_too_recently_keeps_no_listing(docroot, connect, tmp_path, monkeypatch):
    monkeypatch.setattr(kept_listings, "RACY_NS", 10**18)  # every file changed "just now": its stamp may not tell a later write
    cache = tmp_path / "cache"
    await listing(connect, serve(docroot, cache))
    assert not list((cache / "listings").glob("*.json"))


async def test_kept_listings_of_another_shape_are_made_again(docroot, connect, tmp_path, caplog):
    cache = tmp_path / "cache"
    server = serve(docroot, cache)
    first = await listing(connect, server)
    provider = next(p for p in server.providers if hasattr(p, "kept"))
    mark = provider.kept.fingerprint(provider.docroot.build())
    store = provider.docroot.store
    store.save("listings", str(docroot.root), {"fingerprint": mark, "icons": {}, "records": {"resources": "[[{}]]", "templates": "[]", "prompts": "[]"}})
    with caplog.at_level(logging.INFO, logger="guide"):
        again = await listing(connect, serve(docroot, cache))
    assert "not of this server's shape" in caplog.text
    assert again == first


async def test_a_snapshot_made_again_with_nothing_changed_keeps_its_listings(docroot, connect, tmp_path):
    server = serve(docroot, tmp_path / "cache")
    provider = next(p for p in server.providers if hasattr(p, "kept"))
    async with connect(server) as client:
        before = await client.list_resource_templates()
        provider.docroot.invalidate()  # as the watcher does when it begins
        carried = await client.list_resource_templates()
        assert provider.docroot.built() is not None
        path = next((docroot.root / "_commands").rglob("*.md"))
        path.write_text(path.read_text(encoding="utf-8").replace("description:", "description: Edited,", 1), encoding="utf-8")
        provider.docroot.invalidate([path])
        edited = await client.list_resource_templates()
    assert carried == before
    assert edited != before and any("Edited," in (item.description or "") for item in edited)


async def test_listings_that_cannot_be_kept_cost_one_log_line_and_nothing_else(docroot, connect, tmp_path, caplog):
    server = serve(docroot, tmp_path / "cache")
    provider = next(p for p in server.providers if hasattr(p, "kept"))

    def broken(component):
        raise RuntimeError("no room")

    provider.kept.record = broken
    with caplog.at_level(logging.WARNING, logger="guide"):
        first = await listing(connect, server)  # the server stops as the client leaves: it tries to keep them then
    assert [line for line in caplog.messages if "could not keep the listings" in line and "no room" in line]
    assert not list((tmp_path / "cache" / "listings").glob("*.json"))
    assert first == await listing(connect, serve(docroot, tmp_path / "cache"))
