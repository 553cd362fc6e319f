"""Guide's commands run as child processes under an address-space ceiling (RLIMIT_AS).

A memory regression then fails the test (MemoryError, a refused start, a dead
server) instead of taking the machine down. glibc reserves address space per
thread arena; `MALLOC_ARENA_MAX=2` keeps that reservation small, so the ceiling
measures what Guide builds rather than how many threads touched malloc.
"""

import contextlib
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from e2e.e2e_support import free_port, stop

CEILING = 1024 * 1024 * 1024
"""The address space a child may take: several times what Guide needs for any test docroot, far below what a bomb takes."""
START_TIMEOUT = 60.0  # seconds a server gets to answer /healthz (a safety net, not a measurement)
REPO = Path(__file__).resolve().parents[2]


def _limit(ceiling: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))

    return apply


def environment(cache: Path, **extra: str) -> dict[str, str]:
    """The child's environment: the kept files in `cache`, small malloc arenas, Python's own messages unbuffered."""
    return {**os.environ, "GUIDE_CACHE_DIR": str(cache), "MALLOC_ARENA_MAX": "2", "PYTHONUNBUFFERED": "1", **extra}


def guide(*args: str, cache: Path, ceiling: int = CEILING, timeout: float = 300) -> subprocess.CompletedProcess:
    """`guide ARGS...` run to its end under the ceiling, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "guide", *args], cwd=REPO, env=environment(cache), preexec_fn=_limit(ceiling),
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False,
    )


@contextlib.contextmanager
def http_server(docroot: Path, workdir: Path, ceiling: int = CEILING) -> Iterator[tuple[str, Path]]:
    """`guide serve --transport http` on `docroot` under the ceiling; yields its /mcp URL and its log once /healthz says 200."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = workdir / "server.log"
    command = [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(workdir),
               "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=workdir, env=environment(workdir / "cache"), preexec_fn=_limit(ceiling),
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    yield f"http://127.0.0.1:{port}/mcp", log_path
                    assert process.poll() is None, f"the server ended:\n{log_path.read_text(errors='replace')}"
                    return
            time.sleep(0.1)
        pytest.fail(f"guide serve did not become healthy on port {port}:\n{log_path.read_text(errors='replace')}")
    finally:
        if process.poll() is None:
            stop(process)
