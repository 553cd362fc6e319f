"""Guide's commands run as child processes under an address-space ceiling (RLIMIT_AS).

A memory regression then fails the test (MemoryError, a refused start, a dead
server) instead of taking the machine down. glibc reserves address space per
thread arena; `MALLOC_ARENA_MAX=2` keeps that reservation small, so the ceiling
measures what Guide builds rather than how many threads touched malloc.
"""

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from support.servers import guide_http, limited

CEILING = 1024 * 1024 * 1024
"""The address space a child may take: several times what Guide needs for any test docroot, far below what a bomb takes."""
START_TIMEOUT = 60.0  # seconds a server gets to answer /healthz (a safety net, not a measurement)
REPO = Path(__file__).resolve().parents[2]


def environment(cache: Path, **extra: str) -> dict[str, str]:
    """The child's environment: the kept files in `cache`, small malloc arenas, Python's own messages unbuffered."""
    return {**os.environ, "GUIDE_CACHE_DIR": str(cache), "MALLOC_ARENA_MAX": "2", "PYTHONUNBUFFERED": "1", **extra}


def guide(*args: str, cache: Path, ceiling: int = CEILING, timeout: float = 300) -> subprocess.CompletedProcess:
    """`guide ARGS...` run to its end under the ceiling, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "guide", *args], cwd=REPO, env=environment(cache), preexec_fn=limited(ceiling),
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False,
    )


@contextlib.contextmanager
def http_server(docroot: Path, workdir: Path, ceiling: int = CEILING) -> Iterator[tuple[str, Path]]:
    """`guide serve --transport http` on `docroot` under the ceiling; yields its /mcp URL and its log once /healthz says 200."""
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "server.log"
    with guide_http(docroot, workdir, log_path, address_space=ceiling, env=environment(workdir / "cache")) as (url, port, process):
        deadline = time.monotonic() + START_TIMEOUT
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    yield url, log_path
                    assert process.poll() is None, f"the server ended:\n{log_path.read_text(errors='replace')}"
                    return
            time.sleep(0.1)
        pytest.fail(f"guide serve did not become healthy on port {port}:\n{log_path.read_text(errors='replace')}")
