"""Fixtures for the end-to-end tests: a docroot builder, servers, clients and a recording elicitor.

Every test in this folder runs once per protocol era (the autouse `mode` fixture).
"""

import os

os.environ["FASTMCP_LOG_LEVEL"] = "CRITICAL"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from e2e_docroot import DocrootBuilder  # noqa: E402
from e2e_support import Elicitor  # noqa: E402
from fastmcp import Client  # noqa: E402
from support.clocks import person  # noqa: E402
from support.eras import MODES  # noqa: E402

from guide.server.app import create_server  # noqa: E402

# A Node client suite may live beside these tests; never collect its dependencies.
collect_ignore_glob = ["node/node_modules/*", "node-v2/node_modules/*", "inspector/node_modules/*", "apps-host/node_modules/*", "mcp-remote/node_modules/*"]

EXAMPLE_DOCROOT = Path(__file__).resolve().parents[2] / "src" / "guide" / "examples" / "docroot"


@pytest.fixture(params=MODES, autouse=True)
def mode(request) -> str:
    """The protocol era of the client: the handshake era (`legacy`) or `2026-07-28`."""
    return request.param


@pytest.fixture
def docroot(tmp_path) -> DocrootBuilder:
    """A docroot builder pre-filled with the standard test docroot."""
    return DocrootBuilder(tmp_path).base()


@pytest.fixture
def empty_docroot(tmp_path) -> DocrootBuilder:
    """A docroot builder with nothing in it."""
    return DocrootBuilder(tmp_path)


@pytest.fixture
def server(docroot):
    """A Guide server over the standard test docroot, watching its files; a person answers each form (`support.clocks.person`)."""
    return create_server(docroot.root, project=docroot.project, clock=person())


@pytest.fixture
def example_server(tmp_path):
    """A Guide server over the bundled example docroot (project: an empty folder); a person answers each form."""
    return create_server(EXAMPLE_DOCROOT, project=tmp_path, watch=False, clock=person())


@pytest.fixture
def elicitor() -> Elicitor:
    """A scripted elicitation handler that records what it is asked."""
    return Elicitor()


@pytest.fixture
def connect(mode):
    """`connect(target, elicitor=None)`: a Client in this test's mode, with a handler only if given."""

    def make(target, elicitor: Elicitor | None = None, **options) -> Client:
        if elicitor is not None:
            options["elicitation_handler"] = elicitor.handle
        return Client(target, mode=mode, **options)

    return make
