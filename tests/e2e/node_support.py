"""Whether a Node.js client suite beside these tests can run, and if not, the reason pytest reports."""

import functools
import json
import os
import re
import shutil
import subprocess
import sys
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


def run_node_client(folder: Path, docroot: Path, uri: str, plan: dict, cwd: Path, timeout: float) -> dict:
    """Run `client.mjs` in `folder` against a Guide server over that docroot; its last stdout line, as JSON."""
    command = [NODE, "client.mjs", "--python", sys.executable, "--docroot", str(docroot), "--uri", uri, "--plan", json.dumps(plan), "--cwd", str(cwd)]
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    try:
        finished = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"node client.mjs did not finish within {timeout} s; stderr:\n{error.stderr}")
    assert finished.returncode == 0, f"node client.mjs exited {finished.returncode}\nstdout:\n{finished.stdout}\nstderr:\n{finished.stderr}"
    lines = finished.stdout.strip().splitlines()
    assert lines, f"node client.mjs printed nothing; stderr:\n{finished.stderr}"
    return json.loads(lines[-1])
