"""`guide serve` over HTTP in a child process under an address-space ceiling, and the memory it holds.

A regression then fails the test (the server runs out of memory, or the read
fails) instead of taking the machine down.
"""

import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CEILING = 1536 * 1024 * 1024
"""The server's address-space ceiling (1.5 GiB): several times what it needs, well under what the hostile files wanted."""
START = 60.0
"""Seconds the server gets to accept connections (a net for a stuck start, never a measurement)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def capped_server(docroot: Path, project: Path, log: Path, ceiling: int = CEILING) -> Iterator[tuple[str, subprocess.Popen]]:
    """A `guide serve --transport http` process over `docroot` whose address space may not pass `ceiling`: its /mcp URL and process."""
    port = _free_port()

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))

    env = {**{key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}, "FASTMCP_LOG_LEVEL": "WARNING", "GUIDE_NO_CACHE": "1"}
    command = [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project),
               "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as errors:
        process = subprocess.Popen(command, env=env, cwd=project, stdout=subprocess.DEVNULL, stderr=errors, preexec_fn=limit)
    try:
        deadline = time.monotonic() + START
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"guide serve ended with status {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"guide serve did not accept connections within {START} s") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def rss(process: subprocess.Popen) -> int:
    """The resident memory of a running process, in bytes."""
    for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"process {process.pid} has no VmRSS (it ended?)")
