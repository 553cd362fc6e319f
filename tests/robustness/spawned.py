"""A `guide serve --transport http` process for the tests of the watch: under an address-space ceiling, as another user if asked.

In-process servers share the test's interpreter, so a watch that holds the
interpreter lock or grows without bound would stall or sink the test itself;
in its own process under `RLIMIT_AS`, a regression fails the test instead of
taking the machine down.
"""

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.servers import guide_http, without

ADDRESS_SPACE = 2 * 1024**3
"""The server's address-space ceiling: an idle server reserves about 0.3 GiB, a watch walking a linked system tree grew past 1 GiB."""
NOBODY = 65534
"""The user and group an unprivileged server runs as (when the tests run as root, who can read any folder)."""


@contextmanager
def open_folder() -> Iterator[Path]:
    """A fresh folder every user may enter (a test's own tmp_path is private to its owner), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="guide-watch-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def unprivileged() -> list[str]:
    """The command prefix that runs a program as nobody when the tests run as root (`setpriv`), else nothing.

    Root reads any folder, so a folder's permissions would stop nothing: a test
    of an unreadable folder runs its program as another user instead.
    """
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no way to run the server as a user a folder's permissions stop")
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


@contextmanager
def served(docroot: Path, project: Path, log: Path, *, as_nobody: bool = False) -> Iterator[tuple[str, subprocess.Popen]]:
    """`guide serve` over HTTP on a free port: its /mcp URL and process; its log (standard error) goes to `log`."""
    env = without(lambda key: key == "GUIDE_STATE_KEYS", GUIDE_NO_CACHE="1", FASTMCP_LOG_LEVEL="CRITICAL")
    prefix = unprivileged() if as_nobody else []
    with guide_http(docroot, project, log, address_space=ADDRESS_SPACE, env=env, prefix=prefix) as (url, _, process):
        yield url, process


def inotify_watches(pid: int) -> int:
    """How many file-system watches the process holds (Linux: one `inotify wd:` line per watch in its descriptors' info)."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            count += sum(line.startswith("inotify wd:") for line in Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines())
        except OSError:
            continue
    return count
