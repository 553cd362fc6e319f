"""Fixtures of the robustness suite (issue 10): the suite's docroot, clients in both eras, the fuzzing budget.

Every fuzz test runs a small number of cases by default, so the suite stays fast.
`GUIDE_FUZZ_EXAMPLES=N` runs N cases per fuzz test instead; with N = 15000 the
fuzz tests run over 100,000 cases in all (see docs/security.md):

    GUIDE_FUZZ_EXAMPLES=15000 python -m pytest tests/robustness -k fuzz --hypothesis-show-statistics
"""

import os

os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from fastmcp import Client  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from guide.server.app import create_server  # noqa: E402
from robustness.hostile import write_docroot  # noqa: E402

MODES = ("legacy", "2026-07-28")
FUZZ_EXAMPLES = "GUIDE_FUZZ_EXAMPLES"


def fuzz(ci_examples: int) -> settings:
    """Hypothesis settings for a fuzz test: `ci_examples` cases, or `GUIDE_FUZZ_EXAMPLES` when set."""
    examples = int(os.environ.get(FUZZ_EXAMPLES) or ci_examples)
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    )


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
