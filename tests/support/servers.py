"""`guide serve --transport http` in a child process of its own, for tests that need a real socket, its log, a signal or its memory.

The child runs under an address-space ceiling (`RLIMIT_AS`), so a regression
that makes the server grow fails its test (the server runs out of memory, a
read fails) instead of taking the machine down.
"""

import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

START_TIMEOUT = 60.0
"""Seconds a server gets to accept connections: a net for a stuck start, never a measurement."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """End a server process: SIGTERM, then SIGKILL if it has not ended within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _limits(address_space: int, descriptors: int | None) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    if descriptors is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))


def limited(address_space: int, descriptors: int | None = None) -> Callable[[], None]:
    """What a child runs before it starts: the address-space ceiling, and a file descriptor limit if given."""
    return partial(_limits, address_space, descriptors)


@contextmanager
def guide_http(docroot: Path, project: Path, log: Path, *flags: str, address_space: int, env: Mapping[str, str],
               descriptors: int | None = None, prefix: Sequence[str] = ()) -> Iterator[tuple[str, int, subprocess.Popen]]:
    """Start `guide serve` on a free port of 127.0.0.1 (its standard error to `log`) and yield its /mcp URL, port and process
    once it accepts connections; stop it afterwards.

    `prefix` runs the server through another program (`setpriv`, to run it as another user).
    """
    port = free_port()
    command = [*prefix, sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project),
               "--transport", "http", "--host", "127.0.0.1", "--port", str(port), *flags]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=dict(env), cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
                                   preexec_fn=limited(address_space, descriptors))
    try:
        _accepting(process, port, log)
        yield f"http://127.0.0.1:{port}/mcp", port, process
    finally:
        if process.poll() is None:
            stop(process)


def _accepting(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"guide serve ended with status {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"guide serve did not accept connections on port {port} within {START_TIMEOUT} s") from None
            time.sleep(0.1)


def without(names: Callable[[str], bool], **extra: str) -> dict[str, str]:
    """This process's environment less the variables `names` picks, plus `extra`."""
    return {**{key: value for key, value in os.environ.items() if not names(key)}, **extra}
