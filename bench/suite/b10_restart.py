"""B10: restart with nothing changed on disk: a restarted server's first listing, and `guide check`.

On the largest generated docroot, one Guide server is started, lists
everything and stops (so a parse cache, where Guide keeps one, is written).
Each round then restarts the server and times its first full listing against
its second one in the same process; each round gives one ratio. `guide check`
is then timed with nothing changed, alternating with a run right after one
command file was edited (informational: an edit should cost one file's parse).
All servers and checks of B10 share one cache folder of their own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from bench.harness.common import Config, log, project_dir
from bench.harness.docroot_gen import command_path
from bench.harness.measure import summary
from bench.harness.procs import serve_transport, timed_run
from bench.suite.b8_listing import guide_cache_env, listing_session

TARGET_RATIO = 1.1
TARGET_CHECK_S = 1.0
DocrootFor = Callable[[int], tuple[Path, dict]]


async def _check(root: Path, env: dict[str, str]) -> float:
    seconds, status, output = await timed_run([sys.executable, "-m", "guide", "check", str(root)], env=env)
    if status != 0:
        raise AssertionError(f"B10: guide check found errors:\n{output.decode()[-2000:]}")
    return seconds


async def run(config: Config, workdir: Path, docroot_for: DocrootFor) -> dict:
    size = config.list_sizes[-1]
    root, info = docroot_for(size)
    project = project_dir(workdir)
    env = guide_cache_env(workdir, "b10")
    serve_log = workdir / "serve-b10.log"
    await listing_session(serve_transport(root, project, serve_log, env), str(root))
    ratios, firsts, seconds = [], [], []
    for r in range(config.restart_rounds):
        session = await listing_session(serve_transport(root, project, serve_log, env), str(root))
        firsts.append(session["first_s"])
        seconds.append(session["second_s"])
        ratios.append(session["first_s"] / session["second_s"])
        log(f"  B10: restart {r + 1}/{config.restart_rounds} done")
    unchanged, edited = await _checks(config, root, env)
    ratio = summary(ratios)
    check = summary(unchanged)
    met = {"restart": ratio["median"] <= TARGET_RATIO, "check": check["median"] <= TARGET_CHECK_S}
    return {
        "id": "B10",
        "what": f"restart on the {info['entrypoints']}-entrypoint docroot with nothing changed: first listing over second listing; guide check",
        "target": f"first listing after a restart <= {TARGET_RATIO}x the second; guide check <= {TARGET_CHECK_S:g} s",
        "size": size,
        "restart_first_s": summary(firsts),
        "restart_second_s": summary(seconds),
        "ratio": ratio,
        "check_unchanged_s": check,
        "check_one_edit_s": summary(edited),
        "figure": ratio["median"],
        "met_parts": met,
        "met": all(met.values()),
    }


async def _checks(config: Config, root: Path, env: dict) -> tuple[list[float], list[float]]:
    """`guide check` with nothing changed, alternating with one right after a command was edited; the edits are undone after."""
    unchanged, edited = [], []
    originals: dict[Path, str] = {}
    try:
        for r in range(config.checks):
            unchanged.append(await _check(root, env))
            path = root / command_path(r * 10 + 1)  # a command with forms, a different one each time
            originals.setdefault(path, path.read_text(encoding="utf-8"))
            path.write_text(originals[path] + f"\nEdited for B10, run {r}.\n", encoding="utf-8")
            edited.append(await _check(root, env))
            log(f"  B10: check {r + 1}/{config.checks} done")
    finally:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
    return unchanged, edited
