"""Small helpers shared by the benchmark modules."""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_DOCROOT = REPO / "src" / "guide" / "examples" / "docroot"
ERAS = ("legacy", "2026-07-28")


@dataclass(frozen=True)
class Config:
    """Sizes and iteration counts of one run (`--smoke` shrinks all of them)."""

    smoke: bool
    rounds: int  # rounds of interleaved timing (B1, B2)
    inner: int  # calls per case per round (B1, B2)
    core_rounds: int  # B3
    core_inner: int
    sizes: tuple[int, ...]  # B4 sweep; the last one is "at 10k"
    starts: int  # server starts per size (B4)
    checks: int  # `guide check` runs per size (B4)
    edits: int  # B5
    http_seconds: float  # B7: length of one load run
    http_runs: int  # B7: runs per server
    http_clients: int = 8
    list_sizes: tuple[int, ...] = (1000, 3000, 10000)  # B8 sweep; the last one is also B9's and B10's large docroot
    list_rounds: int = 4  # B8: server starts per side and size
    start_rounds: int = 5  # B9: starts per case and side
    restart_rounds: int = 3  # B10: restarted servers

    @classmethod
    def make(cls, smoke: bool) -> Config:
        if smoke:
            return cls(True, rounds=4, inner=5, core_rounds=5, core_inner=20, sizes=(50, 200), starts=1, checks=1,
                       edits=1, http_seconds=0.5, http_runs=1, list_sizes=(50, 200), list_rounds=1, start_rounds=1, restart_rounds=1)
        return cls(False, rounds=80, inner=40, core_rounds=200, core_inner=50, sizes=(100, 1000, 3000, 10000), starts=5,
                   checks=3, edits=7, http_seconds=3.0, http_runs=8)


def project_dir(workdir: Path) -> Path:
    """A project folder whose workflow state file names an active phase (Guide reads it per request)."""
    project = workdir / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / ".guide.yaml").write_text("phase: implementation\n", encoding="utf-8")
    return project


def child_env() -> dict[str, str]:
    """Environment of spawned servers: the repo's src first on the path, quiet logs."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
    env.pop("GUIDE_STATE_KEYS", None)
    return env


def quiet() -> None:
    """Silence library INFO logs in the benchmark process."""
    for name in ("fastmcp", "mcp", "guide", "httpx", "uvicorn"):
        logging.getLogger(name).setLevel(logging.WARNING)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
