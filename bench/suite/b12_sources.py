"""B12: the cost of delivering a form whose choices come from live sources, against the same form with fixed enums.

    python -m bench --only B12            # in the suite
    python -m bench.suite.b12_sources [--smoke] # alone, prints the record

One Guide server serves two commands over one project, a real git repository
with 1,000 branches and 1,000 Markdown files under `docs/`:

- `_live`: a form with `branch` (`source: git-branches`) and `doc`
  (`source: files:docs/*.md`), each read when the form is delivered and capped at
  100 values;
- `_fixed`: the same form with the same 100 values of each written as `enum`s.

Delivering the form is one 2026-07-28 read that answers `input_required` (the
form, nothing answered yet): both are timed interleaved in one run and the figure
is the per-round ratio live/fixed. The legacy era's whole read (the form asked,
answered, the text rendered) is timed the same way. Target: at most 2 in both.

The server keeps what a source read while nothing it read changed
(`guide.project.kept`), so after the first read a live form costs a few `stat`
calls, not a process and a folder walk; the repository is left alone for
`SETTLED_NS` first (a younger change is read afresh every time). The sources'
own cost is timed alone both ways: read afresh (one `git for-each-ref`, one glob
of 1,000 files) and kept (the stamps checked).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from mcp_types import InputRequiredResult

from bench.harness.common import Config, log, quiet
from bench.harness.measure import compare, interleave_async, repeat_sync, summary
from guide.forms.sources import FILES, GIT_BRANCHES, MAX_CHOICES, Source
from guide.project.kept import KeptReads
from guide.project.sources import read_source
from guide.project.stamps import SETTLED_NS
from guide.server.app import create_server

VALUES = 1000
TARGET = 2.0
FORM = """\
---
description: {what}
elicitation:
  pick:
    message: Which branch and which document?
    schema:
      type: object
      properties:
        branch: {branch}
        doc: {doc}
      required: [branch, doc]
---
PICKED {{{{kwargs.branch}}}} {{{{kwargs.doc}}}}
"""


def project(folder: Path) -> Path:
    """A git repository with `VALUES` branches (one commit) and `VALUES` Markdown files under docs/."""
    docs = folder / "docs"
    docs.mkdir(parents=True)
    for n in range(VALUES):
        (docs / f"doc{n:04d}.md").write_text("x\n", encoding="utf-8")
    identity = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q", "-b", "main"], ["add", "docs"], ["commit", "-q", "-m", "docs"]):
        subprocess.run(["git", *identity, *args], cwd=folder, check=True, capture_output=True, timeout=120)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    refs = "".join(f"create refs/heads/b{n:04d} {head}\n" for n in range(VALUES - 1))  # with main: VALUES branches
    subprocess.run(["git", "update-ref", "--stdin"], cwd=folder, input=refs, check=True, text=True, timeout=120)
    return folder


def settled(repo: Path) -> Path:
    """`repo`, once its stamps are old enough for a server to keep what it reads there (`guide.project.stamps.SETTLED_NS`).

    A repository changed in the last two seconds is read afresh by every read; one
    left alone since is read once. B12 times the second case, the usual one.
    """
    time.sleep(SETTLED_NS / 1e9)
    return repo


def docroot(folder: Path, branches: list[str], docs: list[str]) -> Path:
    """The two commands: the live form, and the same form with the values it offers written out."""
    commands = folder / "_commands"
    commands.mkdir(parents=True)
    live = FORM.format(what="Live choices.", branch="{type: string, source: git-branches}", doc='{type: string, source: "files:docs/*.md"}')
    fixed = FORM.format(what="Fixed choices.", branch=json.dumps({"type": "string", "enum": branches}), doc=json.dumps({"type": "string", "enum": docs}))
    (commands / "live.md").write_text(live, encoding="utf-8")
    (commands / "fixed.md").write_text(fixed, encoding="utf-8")
    return folder


async def _unused(message, response_type, params, context):
    raise AssertionError("B12 delivers the form without answering it")


def _answer(message, response_type, params, context):
    properties = params.requested_schema["properties"]
    return {name: schema["enum"][0] for name, schema in properties.items()}


async def _answering(message, response_type, params, context):
    return _answer(message, response_type, params, context)


async def run(config: Config, workdir: Path) -> dict:
    repo = settled(project(workdir / "b12-project"))
    branches = list(read_source(Source(GIT_BRANCHES), repo))
    docs = list(read_source(Source(FILES, "docs/*.md"), repo))
    if len(branches) != MAX_CHOICES or len(docs) != MAX_CHOICES:
        raise AssertionError(f"B12: the sources offered {len(branches)} branches and {len(docs)} files, not {MAX_CHOICES} each")
    server = create_server(docroot(workdir / "b12-docroot", branches, docs), repo, watch=False)
    rounds, inner = (3, 2) if config.smoke else (40, 10)
    deliveries, reads = await _timed(server, rounds, inner)
    timed = {}
    for name, source in (("git_branches", Source(GIT_BRANCHES)), ("files_glob", Source(FILES, "docs/*.md"))):
        kept = KeptReads()
        timed[f"{name}_ms"] = _ms(repeat_sync(lambda source=source: read_source(source, repo), rounds=rounds, inner=inner, warmup=2))
        timed[f"{name}_kept_ms"] = _ms(repeat_sync(lambda source=source, kept=kept: read_source(source, repo, kept=kept), rounds=rounds, inner=inner,
                                                   warmup=2))
    delivered, legacy = compare(deliveries["live"], deliveries["fixed"]), compare(reads["live"], reads["fixed"])
    return {
        "id": "B12",
        "what": f"a form with git-branches and files: sources ({VALUES:,} values each, {MAX_CHOICES} offered) vs the same form with fixed enums",
        "target": f"ratio <= {TARGET} each",
        "figure": delivered["ratio"]["median"],
        "delivery_2026": delivered,
        "legacy_read": legacy,
        **timed,
        "met": max(delivered["ratio"]["median"], legacy["ratio"]["median"]) <= TARGET,
    }


def _ms(seconds: list[float]) -> dict:
    return {k: (v * 1e3 if k != "n" else v) for k, v in summary(seconds).items()}


async def _timed(server, rounds: int, inner: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds per delivery of each form (2026-07-28) and per whole legacy read, the two commands alternating, after checking they ask the same."""
    async with Client(server, mode="2026-07-28", elicitation_handler=_unused) as modern, \
            Client(server, mode="legacy", elicitation_handler=_answering) as legacy:
        delivered = {}
        for name in ("live", "fixed"):
            result = await modern.session.read_resource(f"guide://_{name}", allow_input_required=True)
            if not isinstance(result, InputRequiredResult):
                raise AssertionError(f"B12: guide://_{name} did not ask its form")
            delivered[name] = result.input_requests["pick"].params.requested_schema
        if delivered["live"] != delivered["fixed"]:
            raise AssertionError("B12: the live and the fixed form differ")

        def delivery(uri: str):
            return lambda: modern.session.read_resource(uri, allow_input_required=True)

        def whole(uri: str):
            return lambda: legacy.read_resource(uri)

        deliveries = await interleave_async({"live": delivery("guide://_live"), "fixed": delivery("guide://_fixed")}, rounds=rounds, inner=inner)
        reads = await interleave_async({"live": whole("guide://_live"), "fixed": whole("guide://_fixed")}, rounds=rounds, inner=inner)
    return deliveries, reads


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suite.b12_sources")
    parser.add_argument("--smoke", action="store_true")
    options = parser.parse_args()
    quiet()
    with tempfile.TemporaryDirectory(prefix="guide-b12-") as temp:
        began = time.perf_counter()
        result = asyncio.run(run(Config.make(options.smoke), Path(temp)))
        log(f"B12 done in {time.perf_counter() - began:.1f} s")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
