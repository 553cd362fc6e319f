"""Whether a Node.js client suite beside these tests can run, and if not, the reason pytest reports."""

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
MIN_NODE = 20
ENABLE = "see 'Node.js client tests' in README.md"


@functools.cache
def node_major() -> int | None:
    """The major version of the `node` on PATH, or None if it cannot be read."""
    if NODE is None:
        return None
    try:
        found = re.match(r"v(\d+)\.", subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=30).stdout)
    except (OSError, subprocess.SubprocessError):
        return None
    return int(found.group(1)) if found else None


def missing(folder: Path, package: str) -> str | None:
    """Why the client in `folder` cannot run (no node, an old node, its package not installed), or None."""
    if NODE is None:
        return f"Node.js is not installed: the TypeScript SDK client tests need node >= {MIN_NODE}; {ENABLE}"
    major = node_major()
    if major is None or major < MIN_NODE:
        return f"node {major if major is not None else '(unknown version)'} is too old: the TypeScript SDK client tests need node >= {MIN_NODE}"
    if not (folder / "node_modules" / package / "package.json").is_file():
        return f"{package} is not installed: run `npm ci` in {folder} ({ENABLE})"
    return None


def requires_node_client(folder: Path, package: str) -> pytest.MarkDecorator:
    """A skip mark, with its reason, for tests that drive the Node.js client in `folder`."""
    reason = missing(folder, package)
    return pytest.mark.skipif(reason is not None, reason=reason or "")
