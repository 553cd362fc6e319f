"""Fixtures of the robustness suite (issue 10): the suite's docroot and clients in both eras.

The fuzzing budget (`GUIDE_FUZZ_EXAMPLES`) is `support.fuzzing.fuzz`.
"""

import os

os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from fastmcp import Client  # noqa: E402
from support.eras import MODES  # noqa: E402

from guide.server.app import create_server  # noqa: E402
from robustness.hostile import write_docroot  # noqa: E402


@pytest.fixture(params=MODES)
def mode(request) -> str:
    """The protocol era of the client."""
    return request.param


@pytest.fixture
def root(tmp_path) -> Path:
    """The suite's docroot, written afresh for the test."""
    return write_docroot(tmp_path / "docroot")


@pytest.fixture
def project(tmp_path) -> Path:
    """An empty project folder (no workflow state file)."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def connect(mode, project):
    """`connect(root, handler=None, **server_options)`: a client in this test's era on a fresh server over `root`."""

    def make(root: Path, handler=None, **options) -> Client:
        server = create_server(root, project, watch=False, **options)
        return Client(server, mode=mode, elicitation_handler=handler) if handler else Client(server, mode=mode)

    return make
