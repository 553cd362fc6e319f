"""`guide serve` over HTTP in a child process under an address-space ceiling, and the memory it holds.

A regression then fails the test (the server runs out of memory, or the read
fails) instead of taking the machine down.
"""

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.servers import guide_http, without

CEILING = 1536 * 1024 * 1024
"""The server's address-space ceiling (1.5 GiB): several times what it needs, well under what the hostile files wanted."""


@contextmanager
def capped_server(docroot: Path, project: Path, log: Path, ceiling: int = CEILING) -> Iterator[tuple[str, subprocess.Popen]]:
    """A `guide serve --transport http` process over `docroot` whose address space may not pass `ceiling`: its /mcp URL and process."""
    env = without(lambda key: key == "GUIDE_STATE_KEYS", FASTMCP_LOG_LEVEL="WARNING", GUIDE_NO_CACHE="1")
    with guide_http(docroot, project, log, address_space=ceiling, env=env) as (url, _, process):
        yield url, process


def rss(process: subprocess.Popen) -> int:
    """The resident memory of a running process, in bytes."""
    return _status_bytes(process, "VmRSS")


def peak(process: subprocess.Popen) -> int:
    """The highest resident memory a running process has had, in bytes."""
    return _status_bytes(process, "VmHWM")


def _status_bytes(process: subprocess.Popen, key: str) -> int:
    for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"process {process.pid} has no {key} (it ended?)")
