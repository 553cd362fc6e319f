"""The `guide` program as a process: what it sets up before any command runs."""

import gc
import subprocess
import sys

import pytest

from guide import cli
from guide.examples import DOCROOT


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


CHECK_THEN_LIST_MODULES = """
import sys
from guide.cli import main
status = main(["check", sys.argv[1]])
print("loaded:", status, *sorted({name.split(".")[0] for name in sys.modules} & {"fastmcp", "mcp", "starlette", "uvicorn", "rich"}))
"""


def test_guide_check_runs_without_loading_the_mcp_stack():
    """`guide check` loads the docroot layer only: FastMCP's second of imports is for the commands that serve or read."""
    done = subprocess.run([sys.executable, "-c", CHECK_THEN_LIST_MODULES, str(DOCROOT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "loaded: 0", done.stdout
