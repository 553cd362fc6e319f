"""Fixtures for the end-to-end tests: a docroot builder, servers, clients and a recording elicitor.

Every test in this folder runs once per protocol era (the autouse `mode` fixture).
"""

import os

os.environ["FASTMCP_LOG_LEVEL"] = "CRITICAL"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from e2e_docroot import write_base_docroot, write_file  # noqa: E402
from e2e_support import MODES, Elicitor  # noqa: E402
from fastmcp import Client  # noqa: E402

from guide.server.app import create_server  # noqa: E402

# A Node client suite may live beside these tests; never collect its dependencies.
collect_ignore_glob = ["node/node_modules/*", "node-v2/node_modules/*", "inspector/node_modules/*", "apps-host/node_modules/*"]

EXAMPLE_DOCROOT = Path(__file__).resolve().parents[2] / "src" / "guide" / "examples" / "docroot"


@pytest.fixture(params=MODES, autouse=True)
def mode(request) -> str:
    """The protocol era of the client: the handshake era (`legacy`) or `2026-07-28`."""
    return request.param


class DocrootBuilder:
    """Writes a docroot (and a project folder for workflow state) under a test's tmp_path."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path / "docroot"
        self.project = tmp_path / "project"
        self.root.mkdir()
        self.project.mkdir()

    def write(self, rel: str, text: str) -> Path:
        """Write one docroot file (dedented), creating its folders."""
        return write_file(self.root / rel, text)

    def base(self) -> "DocrootBuilder":
        """The standard test docroot (see `e2e_docroot.BASE_FILES`)."""
        write_base_docroot(self.root)
        return self

    def phase(self, phase: str | None) -> None:
        """Set (or clear) the project's active workflow phase."""
        path = self.project / ".guide.yaml"
        if phase is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(f"phase: {phase}\n", encoding="utf-8")


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
    """A Guide server over the standard test docroot, watching its files."""
    return create_server(docroot.root, project=docroot.project)


@pytest.fixture
def example_server(tmp_path):
    """A Guide server over the bundled example docroot (project: an empty folder)."""
    return create_server(EXAMPLE_DOCROOT, project=tmp_path, watch=False)


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
