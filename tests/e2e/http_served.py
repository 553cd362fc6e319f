"""`guide serve --transport http` in a process of its own, for tests that need a real socket, its log, or a signal.

The server runs under an address-space ceiling (`CEILING`), so a regression
that makes it grow fails its test instead of taking the machine down; its log
(stderr) goes to a file the test reads.
"""

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.servers import guide_http, without

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


@contextmanager
def http_server(docroot: Path, project: Path, log: Path, *flags: str, environ: dict[str, str] | None = None,
                descriptors: int | None = None) -> Iterator[Served]:
    """Start a server on a free port of 127.0.0.1 and yield it once it accepts connections; stop it after.

    `descriptors`: the server's file descriptor limit (default: this process's).
    """
    env = without(lambda key: key.startswith("GUIDE_"), FASTMCP_LOG_LEVEL="WARNING", **(environ or {}))
    with guide_http(docroot, project, log, *flags, address_space=CEILING, env=env, descriptors=descriptors) as (url, port, process):
        yield Served(process, url, port, log)
