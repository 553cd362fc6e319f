"""`guide serve --transport http` in a process of its own, for tests that need a real socket, its log, or a signal.

The server runs under an address-space ceiling (`CEILING`), so a regression
that makes it grow fails its test instead of taking the machine down; its log
(stderr) goes to a file the test reads.
"""

import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from e2e_support import free_port

START_TIMEOUT = 30.0  # seconds the server gets to accept connections
CEILING = 2 * 1024**3  # bytes of address space the server may map


@dataclass
class Served:
    """A running server: its process, its /mcp address, its port and its log file."""

    process: subprocess.Popen
    url: str
    port: int
    log: Path

    def log_text(self) -> str:
        """Everything the server logged so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def terminate(self, timeout: float = 30.0) -> int:
        """Send SIGTERM and wait for the process to end; its exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)


def _ceilings(descriptors: int | None) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CEILING, CEILING))
    if descriptors is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))


@contextmanager
def http_server(docroot: Path, project: Path, log: Path, *flags: str, environ: dict[str, str] | None = None,
                descriptors: int | None = None) -> Iterator[Served]:
    """Start a server on a free port of 127.0.0.1 and yield it once it accepts connections; stop it after.

    `descriptors`: the server's file descriptor limit (default: this process's).
    """
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("GUIDE_")}
    env.update(FASTMCP_LOG_LEVEL="WARNING", **(environ or {}))
    args = [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project),
            "--transport", "http", "--host", "127.0.0.1", "--port", str(port), *flags]
    with log.open("wb") as sink:
        process = subprocess.Popen(args, env=env, cwd=project, stdout=subprocess.DEVNULL, stderr=sink, preexec_fn=partial(_ceilings, descriptors))
    try:
        _wait_for_port(process, port)
        yield Served(process, f"http://127.0.0.1:{port}/mcp", port, log)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def _wait_for_port(process: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"guide serve exited with status {process.returncode} before accepting connections")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"guide serve did not accept connections on port {port} within {START_TIMEOUT} s") from None
            time.sleep(0.1)
