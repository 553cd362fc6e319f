"""Real git repositories made in a test, for the `git-branches` and `git-tags` sources (C5)."""

import os
import shutil
import stat
import subprocess
from collections.abc import Iterable
from pathlib import Path

IDENTITY = ("-c", "user.name=Guide Tests", "-c", "user.email=tests@example.invalid", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` (no global settings needed) and return its output."""
    return subprocess.run(["git", *IDENTITY, *args], cwd=repo, check=True, capture_output=True, text=True, timeout=60).stdout


def make_repo(path: Path, *, branches: Iterable[str] = (), tags: Iterable[str] = (), commit: bool = True) -> Path:
    """A repository at `path` on branch `main` (with one commit unless `commit` is false), plus these branches and tags at that commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if not commit:
        return path
    (path / "README.md").write_text("hello\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    head = git(path, "rev-parse", "HEAD").strip()
    lines = [f"create refs/heads/{name} {head}\n" for name in branches] + [f"create refs/tags/{name} {head}\n" for name in tags]
    if lines:
        subprocess.run(["git", "update-ref", "--stdin"], cwd=path, input="".join(lines), check=True, text=True, timeout=60)
    return path


def path_with(folder: Path) -> str:
    """PATH with `folder` first."""
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"


def hanging_git(folder: Path, pid_file: Path) -> Path:
    """A folder holding a `git` that never answers (a shell that sleeps in a child) and writes its process id to `pid_file`: put it first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "git"
    script.write_text(f"#!/bin/sh\necho $$ > '{pid_file}'\nsleep 3600\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def counting_git(folder: Path, log: Path) -> Path:
    """A folder holding a `git` that appends a line to `log` each time it runs, then runs the real git: put it first on PATH."""
    real = shutil.which("git")
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "git"
    script.write_text(f"#!/bin/sh\necho run >> '{log}'\nexec '{real}' \"$@\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder
