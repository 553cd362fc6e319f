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
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from guide.examples import DOCROOT

START_TIMEOUT = 60.0
"""Seconds a server gets to accept connections: a net for a stuck start, never a measurement."""

CEILING = 2 * 1024**3
"""The address space (bytes) a test's server may map unless the test sets its own: several times what it needs."""

ALICE_TOKEN, BOB_TOKEN = "a" * 40, "b" * 40
"""Static bearer tokens the HTTP tests give alice and bob (`GUIDE_AUTH_TOKENS=alice:...,bob:...`)."""

PORT_ATTEMPTS = 3
"""Starts on fresh ports before giving up: another process may take a free port between the probe and the server's bind."""


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
    command = [*prefix, sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project),
               "--transport", "http", "--host", "127.0.0.1", *flags]
    process, port = _started(command, env, project, log, limited(address_space, descriptors))
    try:
        yield f"http://127.0.0.1:{port}/mcp", port, process
    finally:
        if process.poll() is None:
            stop(process)


def _started(command: list[str], env: Mapping[str, str], cwd: Path, log: Path, before: Callable[[], None]) -> tuple[subprocess.Popen, int]:
    """The server process once it accepts connections, and its port; a port taken between probing and binding is tried again."""
    for _attempt in range(PORT_ATTEMPTS):
        port = free_port()
        with log.open("wb") as sink:
            process = subprocess.Popen([*command, "--port", str(port)], env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=sink, preexec_fn=before)
        try:
            if _accepting(process, port, log):
                return process, port
        except BaseException:
            stop(process)
            raise
    raise RuntimeError(f"guide serve found no free port in {PORT_ATTEMPTS} attempts: {log.read_text(errors='replace')[-2000:]}")


def _accepting(process: subprocess.Popen, port: int, log: Path) -> bool:
    """True once the server accepts connections on `port`; False if it ended because the port was taken."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            text = log.read_text(errors="replace")
            if "address already in use" in text.lower():
                return False
            raise RuntimeError(f"guide serve ended with status {process.returncode}: {text[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"guide serve did not accept connections on port {port} within {START_TIMEOUT} s") from None
            time.sleep(0.1)


def wait_healthy(process: subprocess.Popen, port: int) -> None:
    """Return once the server on `port` answers `GET /healthz` with 200 (its docroot loaded); fail if it ends or after `START_TIMEOUT`."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"guide serve ended with status {process.returncode} before /healthz said 200")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"guide serve did not answer /healthz with 200 on port {port} within {START_TIMEOUT} s")
        time.sleep(0.1)


@contextmanager
def example_http(workdir: Path, env: Mapping[str, str], *flags: str) -> Iterator[str]:
    """`guide serve --transport http` on the bundled example with `env` added to this process's environment (project and
    log in `workdir`, under `CEILING`); yields its /mcp URL once /healthz says 200."""
    workdir.mkdir(parents=True, exist_ok=True)
    with guide_http(DOCROOT, workdir, workdir / "server.log", *flags, address_space=CEILING, env={**os.environ, **env}) as (url, port, process):
        wait_healthy(process, port)
        yield url


def without(names: Callable[[str], bool], **extra: str) -> dict[str, str]:
    """This process's environment less the variables `names` picks, plus `extra`."""
    return {**{key: value for key, value in os.environ.items() if not names(key)}, **extra}
