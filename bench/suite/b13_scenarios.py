"""B13: `guide test`, scenarios per second, and how much of a run is the reads rather than the runner's start.

    python -m bench --only B13               # in the suite
    python -m bench.suite.b13_scenarios [--smoke]   # alone, prints the record

Two docroots: the bundled example (its own `_tests`: 17 scenarios, clients of
every kind, one with a project), and a generated docroot of 1,000 entrypoints
(`bench.harness.docroot_gen`; 50 with `--smoke`) with one scenario per
generated command or skill, answering every form it asks (its snapshots are
written by one `--update` run first, not timed). Each timed run is what
`guide test` does in its process, split in two:

- start: build the docroot, read and check the scenario files, create the
  server, open the six sessions (forms, App form, no forms; both eras);
- reads: every scenario in every channel it applies to, compared.

The figure is scenarios per second of the whole run; `reads_share` is the
reads' part of it (the target: most of a run is the reads). The whole command
(`python -m guide test DOCROOT`, interpreter start included) is timed once per
docroot as well.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.harness.common import EXAMPLE_DOCROOT, REPO, Config, child_env, log, quiet
from bench.harness.docroot_gen import command_name, generate
from bench.harness.measure import summary
from guide.cli.scenarios.clients import ERAS, Clients, in_memory
from guide.cli.scenarios.main import select, server_log
from guide.cli.scenarios.run import PASSED, UPDATED, Runner
from guide.server.app import create_server
from guide.server.settings import open_docroot, read_settings

READS_SHARE_TARGET = 0.5
ANSWERS = [  # the answers of each form shape of docroot_gen (`{i}` is the field suffix)
    {"target{i}": {"mode{i}": "branch"}, "reference{i}": {"reference{i}": "feature/x"}},
    {"options{i}": {"attempts{i}": 2}, "notes{i}": {"notes{i}": "none"}},
    {"person{i}": {"email{i}": "ada@example.com", "role{i}": "dev"}, "tools{i}": {"tools{i}": ["ci"]}},
    {"depth{i}": {"depth{i}": "thorough"}},
]


def answers_of(i: int, n_partials: int) -> dict:
    """What the person answers generated entrypoint `i`: its own forms, and those of the partial it includes."""
    if i % 10 == 0:
        return {}
    found = {}
    for shape, suffix in ((i % len(ANSWERS), ""), ((i % n_partials) % len(ANSWERS), f"_p{i % n_partials}")):
        for form, fields in ANSWERS[shape].items():
            found[form.format(i=suffix)] = {name.format(i=suffix): value for name, value in fields.items()}
    return found


def with_scenarios(root: Path, n: int) -> Path:
    """A generated docroot of `n` entrypoints, with one scenario per generated command or skill, 100 to a file."""
    made = generate(root, n)
    n_partials, n_skills = made["partials"] - 1, made["skills"]
    files: dict[str, dict] = {}
    for i in range(n):
        skill = i >= n - n_skills
        uri = f"guide://${f'skill-{i:05d}'}" if skill else f"guide://_{command_name(i)}"
        scenario = {"read": uri, "answers": answers_of(i, n_partials), "expect": {"snapshot": f"snapshots/e{i:05d}.md"}}
        files.setdefault(f"s{i // 100:03d}.yaml", {})[f"entrypoint {i}"] = scenario
    for name, scenarios in files.items():
        (root / "_tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "_tests" / name).write_text(yaml.safe_dump(scenarios, sort_keys=False), encoding="utf-8")
    return root


async def one_run(root: Path, project: Path, *, update: bool = False) -> dict:
    """One in-process `guide test` run over `root`, timed in its two parts; every scenario must pass (or be written)."""
    began = time.perf_counter()
    settings = read_settings({"docroot": root, "project": project, "projects_under": root, "app_forms": "1", "access_log": "0"})
    docroot = open_docroot(settings)
    errors, runnable = select(docroot.build(), None)
    if errors:
        raise AssertionError(f"B13: {len(errors)} scenarios cannot run, the first: {errors[0].problems[0]}")
    server = create_server(settings=settings, watch=False)
    with server_log("in-process"):
        return await _timed_run(server, docroot.root, runnable, began, update)


async def _timed_run(server, root: Path, runnable: list, began: float, update: bool) -> dict:
    """The sessions opened, then every scenario run: the start's end and the reads timed."""
    async with Clients(in_memory(server)) as clients:
        for kind in ("forms", "apps", "none"):
            for era in ERAS:
                await clients.session(kind, era)
        started = time.perf_counter()
        runner = Runner(clients, root, update=update)
        results = [await runner.run(checked) for checked in runnable]
        ended = time.perf_counter()
    bad = [result for result in results if result.status not in (PASSED, UPDATED)]
    if bad:
        raise AssertionError(f"B13: {len(bad)} scenarios failed, the first: {bad[0].name}: {bad[0].differences[0].message}")
    channels = sum(outcome.skipped is None for result in results for outcome in result.outcomes.values())
    return {"scenarios": len(results), "channel_runs": channels, "start_s": started - began, "reads_s": ended - started,
            "total_s": ended - began}


def command_seconds(root: Path, project: Path) -> float:
    """The wall time of `python -m guide test DOCROOT` (a fresh interpreter), which must exit 0."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "guide", "test", str(root), "--project", str(project), "--format", "json"],
                          capture_output=True, text=True, timeout=900, env=child_env(), cwd=REPO)
    if done.returncode != 0:
        raise AssertionError(f"B13: guide test {root} exited {done.returncode}: {done.stderr[-500:]}")
    return time.perf_counter() - began


async def measure(root: Path, project: Path, rounds: int) -> dict:
    """Rounds of in-process runs over one docroot, and one run of the command."""
    runs = [await one_run(root, project) for _ in range(rounds)]
    totals = [run["total_s"] for run in runs]
    rates = [run["scenarios"] / run["total_s"] for run in runs]
    shares = [run["reads_s"] / run["total_s"] for run in runs]
    return {
        "scenarios": runs[0]["scenarios"], "channel_runs": runs[0]["channel_runs"],
        "scenarios_per_s": summary(rates), "start_s": summary([run["start_s"] for run in runs]),
        "reads_s": summary([run["reads_s"] for run in runs]), "total_s": summary(totals), "reads_share": summary(shares),
        "ms_per_channel_run": summary([run["reads_s"] / run["channel_runs"] * 1e3 for run in runs]),
        "command_s": command_seconds(root, project),
    }


async def run(config: Config, workdir: Path) -> dict:
    project = workdir / "b13-project"
    project.mkdir(parents=True, exist_ok=True)
    example = workdir / "b13-example"
    shutil.copytree(EXAMPLE_DOCROOT, example, dirs_exist_ok=True)
    size = 50 if config.smoke else 1000
    large = with_scenarios(workdir / f"b13-docroot-{size}", size)
    await one_run(large, project, update=True)  # writes every snapshot; not timed
    rounds = 2 if config.smoke else 5
    figures = {"example": await measure(example, project, rounds), f"generated_{size}": await measure(large, project, max(2, rounds - 2))}
    share = min(figure["reads_share"]["median"] for figure in figures.values())
    return {
        "id": "B13",
        "what": f"guide test on the bundled example and on {size:,} generated entrypoints (one scenario each), in this process",
        "target": f"most of a run is the reads: reads share >= {READS_SHARE_TARGET}",
        "figure": figures[f"generated_{size}"]["scenarios_per_s"]["median"],
        "docroots": figures,
        "met": share >= READS_SHARE_TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suite.b13_scenarios")
    parser.add_argument("--smoke", action="store_true")
    options = parser.parse_args()
    quiet()
    with tempfile.TemporaryDirectory(prefix="guide-b13-") as temp:
        began = time.perf_counter()
        result = asyncio.run(run(Config.make(options.smoke), Path(temp)))
        log(f"B13 done in {time.perf_counter() - began:.1f} s")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
