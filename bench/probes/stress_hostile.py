"""The hostile variant of the stress run (`python -m bench.probes.stress --hostile`): the same load with the files of issues 25 and 33 present.

The docroot the readers read also holds, from the start:

- a command with sections nested 15,000 deep (finding 1);
- a command whose frontmatter aliases one anchored 50 KB string 10,000 times (finding 2);
- a folder symlink diamond: 18 folders, each linking twice to the next (finding 3);
- a standalone partial of 400,000 short lines included under 500 spaces (finding 5);
- a folder with a document in it that the server may not read (finding 9; as
  root, permissions do not bind, and the run says so);
- issue 33's pattern bomb: a command whose field's 40-byte `pattern` nests
  counted repeats to a billion characters (finding 1);
- issue 33's huge refs: the project is a git repository whose `packed-refs`
  holds `main` and 100 branch names of 200 KB (20 MB), and a command offers its
  branches (`source: git-branches`), read with and without a branch named (finding 2).

The alias bomb in `guide.yaml` flags (finding 4) is in a docroot of its own,
served by a second server for the whole run: a guide.yaml a server refuses is
refused whole, so in the main docroot it would change what every healthy file
reads (its flags, the workflow phases) and the comparison with the healthy run
would be of two different docroots. The second server's docroot is the example
plus that guide.yaml and a command printing `{{flags.big}}`.

One more client, the attacker, reads every hostile command back to back (each
read bounded by `HOSTILE_READ_TIMEOUT`); its refusals are expected, its reads
that fail unexpectedly or time out are counted. Every server runs under an
address-space ceiling (`CEILING_MB`), so a regression fails instead of taking
the machine down, and keeps its parse store in the run's temporary folder (on
code without finding 2's fix, the alias bomb's parse alone is hundreds of MB). The figures: failed reads of the healthy files (target 0) and
the servers' RSS against the healthy run's (target: within 1.2x).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from fastmcp import Client

from bench.harness.common import EXAMPLE_DOCROOT
from bench.harness.procs import free_port, running
from bench.probes.soak import rss_mb, wait_ready

CEILING_MB = 4096
"""The address space each server may take (RLIMIT_AS), in MiB: a healthy server stays far below it."""
HOSTILE_READ_TIMEOUT = 60.0
HOSTILE_READS = ("guide://_nested", "guide://_aliases", "guide://_indented", "guide://_pattern", "guide://_branches", "guide://_branches?branch=main")
HUGE_REFS = 100
HUGE_NAME = 200_000
"""Characters of each huge branch name (git accepts any length in `packed-refs`)."""
PATTERN_BOMB = "(?<=x)(?:(?:(?:a{1000}){1000}){1000})"
BRANCHES = """---
description: Offers the project's branches.
elicitation:
  pick:
    message: Which branch?
    schema:
      type: object
      properties:
        branch: {type: string, source: git-branches}
      required: [branch]
---
BRANCH {{kwargs.branch}}
"""
FLAG_BOMB_READ = "guide://_flags"
DIAMOND_LEVELS = 18


def write_hostile(root: Path, project: Path) -> list[str]:
    """Add issue 25's hostile files (findings 1, 2, 3, 5, 9) and issue 33's (a pattern bomb, huge refs in `project`) to a docroot;
    return notes on what could not be made as meant."""
    (root / "_commands" / "pattern.md").write_text(
        "---\ndescription: A pattern bomb.\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n"
        f"        x: {{type: string, pattern: '{PATTERN_BOMB}'}}\n---\nPATTERN {{{{kwargs.x}}}}\n", encoding="utf-8")
    (root / "_commands" / "branches.md").write_text(BRANCHES, encoding="utf-8")
    write_huge_refs(project)
    (root / "_commands" / "nested.md").write_text("{{#a}}" * 15_000 + "deep" + "{{/a}}" * 15_000 + "\n", encoding="utf-8")
    aliases = ", ".join(["*big"] * 10_000)
    (root / "_commands" / "aliases.md").write_text(f"---\ndescription: Aliases.\nbig: &big {'x' * 50_000}\nmany: [{aliases}]\n---\nALIASES\n", encoding="utf-8")
    (root / "_partials" / "wide.md").write_text("x\n" * 400_000, encoding="utf-8")
    (root / "_commands" / "indented.md").write_text("INDENTED\n" + " " * 500 + "{{>wide}}\n", encoding="utf-8")
    for level in range(DIAMOND_LEVELS):
        folder = root / "diamond" / f"d{level:02}"
        folder.mkdir(parents=True)
        for link in ("a", "b"):
            (folder / link).symlink_to(Path("..") / f"d{level + 1:02}", target_is_directory=True)
    (root / "diamond" / f"d{DIAMOND_LEVELS:02}").mkdir()
    (root / "diamond" / f"d{DIAMOND_LEVELS:02}" / "end.md").write_text("END\n", encoding="utf-8")
    secret = root / "secret"
    secret.mkdir()
    (secret / "hidden.md").write_text("HIDDEN\n", encoding="utf-8")
    secret.chmod(0)
    return ["running as root: the unreadable folder is readable (permissions do not bind root)"] if os.geteuid() == 0 else []


def write_huge_refs(project: Path) -> None:
    """Make `project` a git repository on `main` whose `packed-refs` also names `HUGE_REFS` branches of `HUGE_NAME` characters."""
    identity = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    for command in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *identity, *command], cwd=project, check=True, capture_output=True, timeout=60)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project, check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    names = [f"z{index:03}-" + "n" * HUGE_NAME for index in range(HUGE_REFS)]
    (project / ".git" / "packed-refs").write_text("".join(f"{head} refs/heads/{name}\n" for name in names), encoding="utf-8")


def restore(root: Path) -> None:
    """Make the unreadable folder readable again, so the run's temporary folder can be removed."""
    with_secret = root / "secret"
    if with_secret.exists():
        with_secret.chmod(0o755)


def write_flag_bomb(root: Path) -> None:
    """The example docroot, with 5,000 aliases of a 100 KB string among its guide.yaml flags and a command printing them (finding 4)."""
    shutil.copytree(EXAMPLE_DOCROOT, root)
    config = (root / "guide.yaml").read_text(encoding="utf-8")
    bomb = f"  chunk: &chunk {'y' * 100_000}\n  big: [{', '.join(['*chunk'] * 5_000)}]\n"
    (root / "guide.yaml").write_text(config.replace("flags:\n", "flags:\n" + bomb, 1), encoding="utf-8")
    (root / "_commands" / "flags.md").write_text("FLAGS {{flags.big}}\n", encoding="utf-8")


class Attacker:
    """Reads the hostile commands back to back and sorts what came back: refused (expected), failed unexpectedly, timed out, or read."""

    def __init__(self) -> None:
        self.outcomes: Counter = Counter()
        self.examples: list[str] = []

    async def run(self, reads: list[tuple[str, str]], stop: asyncio.Event) -> None:
        """Read each (server url, uri) in turn until `stop`."""
        try:
            async with AsyncExitStack() as stack:
                clients = {url: await stack.enter_async_context(Client(url, mode="2026-07-28", timeout=HOSTILE_READ_TIMEOUT)) for url, _ in reads}
                while not stop.is_set():
                    for url, uri in reads:
                        await self._read(clients[url], uri)
        except Exception as error:  # a server too frozen to connect to is a figure too
            self.outcomes[f"attacker stopped: {str(error)[:120]}"] += 1

    async def _read(self, client: Client, uri: str) -> None:
        try:
            text = (await asyncio.wait_for(client.read_resource(uri), HOSTILE_READ_TIMEOUT))[0].text
            self.outcomes[f"{uri} read ({len(text):,} characters)"] += 1
        except TimeoutError:
            self.outcomes[f"{uri} timed out"] += 1
        except Exception as error:  # what the run sorts
            unexpected = "failed unexpectedly" in str(error)
            self.outcomes[f"{uri} {'failed unexpectedly' if unexpected else 'refused'}"] += 1
            if len(self.examples) < 6 and str(error)[:200] not in self.examples:
                self.examples.append(str(error)[:200])


@asynccontextmanager
async def flag_bomb_server(workdir: Path, serve_command: Callable[[Path, Path, int, Path], list[str]]) -> AsyncIterator[tuple[str, int]]:
    """The second server, over the guide.yaml bomb's docroot: its url and pid while it runs."""
    root = workdir / "flag-bomb"
    write_flag_bomb(root)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = serve_command(root, workdir, port, workdir / "flag-bomb-lags.jsonl")
    with running(command, workdir / "flag-bomb.log", store_env(workdir / "flag-bomb-store")) as server:
        await wait_ready(url, server)
        yield url, server.pid


async def with_attacker(measured: Awaitable[dict], url: str, workdir: Path, notes: list[str], serve_command, reader) -> dict:
    """`measured` (the stress run on `url`) while the attacker reads the hostile files and the guide.yaml bomb's server serves it and a reader.

    `serve_command(root, project, port, lag_file)` starts a probed server; `reader(url, era, stop, tally, failures)` is the run's reader.
    """
    async with flag_bomb_server(workdir, serve_command) as (side_url, side_pid):
        stop, tally, failures, attacker = asyncio.Event(), Counter(), [], Attacker()
        side_reader = asyncio.create_task(reader(side_url, "legacy", stop, tally, failures))
        attacking = asyncio.create_task(attacker.run([(url, uri) for uri in HOSTILE_READS] + [(side_url, FLAG_BOMB_READ)], stop))
        peak = asyncio.create_task(peak_rss(side_pid, stop))
        try:
            result = await measured
        finally:
            stop.set()
            await asyncio.gather(side_reader, attacking, peak, return_exceptions=True)
        side = {"reads": dict(tally), "failed_reads": tally["failed"] + tally["wrong"], "failures": failures[:5], "peak_rss_mb": round(peak.result(), 1)}
        result["hostile"] = {"notes": notes, "attacker": dict(attacker.outcomes), "attacker_examples": attacker.examples, "flag_bomb": side}
        return result


async def peak_rss(pid: int, stop: asyncio.Event) -> float:
    """The highest RSS of a process, sampled every 0.25 s until `stop`, in MB."""
    peak = 0.0
    while not stop.is_set():
        try:
            peak = max(peak, rss_mb(pid))
        except (OSError, RuntimeError):  # the process is gone: its figures say so
            break
        await asyncio.sleep(0.25)
    return peak


def store_env(folder: Path) -> dict[str, str]:
    """The environment that keeps a server's parse store in `folder` (removed with the run): a hostile docroot's store stays out of the user's."""
    return {"GUIDE_CACHE_DIR": str(folder / "store")}


def limit_address_space(ceiling_mb: int) -> None:
    """Cap this process's address space (RLIMIT_AS) at `ceiling_mb` MiB."""
    import resource

    ceiling = ceiling_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


def compare(healthy: dict, hostile: dict, target: float) -> dict:
    """The hostile run against the healthy one: failed reads of the healthy files and RSS ratios (peak, after the storm)."""
    ratios = {key: round(hostile["rss_mb"][key] / healthy["rss_mb"][key], 3) for key in ("peak", "after_storm")}
    side = hostile.get("hostile", {}).get("flag_bomb", {})
    side_ratio = round(side.get("peak_rss_mb", 0.0) / healthy["rss_mb"]["before_storm"], 3) if side else None
    failed = hostile["failed_reads"] + side.get("failed_reads", 0)
    return {
        "failed_reads_of_healthy_files": failed,
        "rss_ratio_to_healthy": ratios,
        "flag_bomb_server_peak_over_healthy_before_storm": side_ratio,
        "met": failed == 0 and max(ratios.values()) <= target and (side_ratio is None or side_ratio <= target),
    }


def print_comparison(result: dict, target: float) -> None:
    """The hostile run's own lines, after the two runs' figures."""
    hostile, verdict = result["hostile"], result["comparison"]
    print(f"hostile: {verdict['failed_reads_of_healthy_files']} failed reads of the healthy files (target 0); "
          f"RSS over the healthy run: peak {verdict['rss_ratio_to_healthy']['peak']}x, after the storm {verdict['rss_ratio_to_healthy']['after_storm']}x; "
          f"the guide.yaml bomb's server peaked at {verdict['flag_bomb_server_peak_over_healthy_before_storm']}x the healthy server before its storm "
          f"(target {target}x): {'met' if verdict['met'] else 'NOT met'}")
    side = hostile.get("flag_bomb", {})
    print(f"hostile: the guide.yaml bomb's server: reads {side.get('reads')}, peak RSS {side.get('peak_rss_mb')} MB, failures {side.get('failures')}")
    print(f"hostile: the attacker's reads {dict(hostile.get('attacker', {}))}; examples {hostile.get('attacker_examples')}")
    for note in hostile.get("notes", []):
        print(f"hostile: note: {note}")
    if sys.platform != "linux":
        print("hostile: note: RSS and the address-space ceiling need Linux")
