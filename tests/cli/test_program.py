"""The `guide` program as a process: what it sets up before any command runs."""

import gc

import pytest

from guide import cli


def test_the_program_collects_young_objects_less_often_and_freezes_nothing(monkeypatch):
    """A large docroot's build is not collected over and over (docs/benchmarks-history.md, "The garbage collector")."""
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen = {}

    def fake_main():
        seen["threshold"], seen["enabled"] = gc.get_threshold(), gc.isenabled()
        return 0

    def fake_exit(status):
        raise SystemExit(status)

    monkeypatch.setattr(cli, "main", fake_main)
    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    try:
        with pytest.raises(SystemExit):
            cli.run()
    finally:
        gc.set_threshold(*before)
    assert seen == {"threshold": (cli.YOUNG_COLLECTION, *before[1:]), "enabled": True}
    assert gc.get_freeze_count() == frozen
