"""Spawning Guide servers and measuring child processes (Linux /proc, with a portable fallback)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from fastmcp.client.transports import StdioTransport

from bench.harness.common import REPO, child_env


def serve_transport(docroot: Path, project: Path, log_file: Path, env: Mapping[str, str] | None = None) -> StdioTransport:
    """`python -m guide serve --docroot DOCROOT` over stdio, a fresh process per connection."""
    args = ["-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project)]
    return python_transport(args, log_file, env)


def http_serve_command(docroot: Path, project: Path, port: int) -> list[str]:
    """`python -m guide serve` over streamable HTTP on 127.0.0.1:`port`."""
    return [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project),
            "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running(command: Sequence[str], log_file: Path, env: Mapping[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """A child process with the benchmark environment (plus `env`), its output in `log_file`, stopped on leaving."""
    with open(log_file, "wb") as log:
        process = subprocess.Popen(list(command), cwd=str(REPO), env={**child_env(), **(env or {})}, stdout=log, stderr=log)
        try:
            yield process
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """Ask a child process to end (SIGTERM), and kill it if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def python_transport(args: Sequence[str], log_file: Path, env: Mapping[str, str] | None = None) -> StdioTransport:
    """`python ARGS` over stdio with the benchmark environment (plus `env`), a fresh process per connection."""
    return StdioTransport(command=sys.executable, args=list(args), env={**child_env(), **(env or {})}, cwd=str(REPO), keep_alive=False,
                          log_file=log_file)


def child_pid(marker: str) -> int | None:
    """The pid of this process's child whose command line contains `marker`."""
    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if marker in cmdline:
            return int(entry)
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """User plus system CPU time a live process has used so far."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().decode(errors="replace").rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int | None) -> float | None:
    """Peak resident set size (VmHWM) of a live process, in MB (10^6 bytes)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e6  # VmHWM is given in KiB
    except OSError:
        return None
    return None


async def timed_run(args: Sequence[str], *, cwd: Path = REPO, env: Mapping[str, str] | None = None) -> tuple[float, int, bytes]:
    """Wall time, exit status and stdout of a child process (benchmark environment plus `env`)."""
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *args, cwd=str(cwd), env={**child_env(), **(env or {})}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    out, _ = await process.communicate()
    return time.perf_counter() - start, process.returncode, out
