"""`guide test`: read and check the scenario files, start the server once, run each scenario, print the report, say how it went."""

import argparse
import asyncio
import fnmatch
import logging
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from guide.cli.configured import settings_of
from guide.cli.scenarios import report
from guide.cli.scenarios.clients import Clients, in_memory, over_stdio
from guide.cli.scenarios.run import ERROR, FAILED, Result, Runner, counts
from guide.docroot.built import Built
from guide.docroot.scenarios import folder
from guide.docroot.scenarios.checks import Checked, check
from guide.server import logs
from guide.server.app import create_server
from guide.server.settings import Settings, open_docroot

PRINTERS = {"text": report.text, "json": report.as_json, "junit": report.junit}


def run_tests(options: argparse.Namespace) -> int:
    """Run the scenarios `options` select and print the report; the exit status says how it went."""
    if options.docroot is not None and not options.docroot.is_dir():
        print(f"guide test: {options.docroot} is not a folder", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="guide-test-project-") as empty:
        settings = settings_of("test", docroot=options.docroot, project=options.project or Path(empty), app_forms="1")
        if settings is None:
            return 2
        started = time.perf_counter()
        docroot = open_docroot(settings)
        results, runnable = select(docroot.build(), options.pattern)
        docroot.keep_parses()  # the server builds the docroot again: it finds what this build parsed
        if not results and not runnable:
            print(f"guide test: no scenario{' matches ' + repr(options.pattern) if options.pattern else ''} in "
                  f"{docroot.root / folder.TESTS} (docs/testing.md says how to write one)", file=sys.stderr)
            return 2
        settings = replace(settings, docroot=docroot.root, projects_under=docroot.root, metrics=False, access_log=False)
        results += asyncio.run(_run(settings, runnable, options.server, options.update))
    results.sort(key=lambda result: (result.path, result.line))
    print(PRINTERS[options.format](results, time.perf_counter() - started))
    found = counts(results)
    return 2 if found[ERROR] else 1 if found[FAILED] else 0


def select(built: Built, pattern: str | None) -> tuple[list[Result], list[Checked]]:
    """The scenarios that cannot run (as results in error) and those that can, checked; only those `pattern` selects."""
    errors: list[Result] = []
    runnable: list[Checked] = []
    for found in folder.read_all(built.snapshot.root, built.files.limit):
        named = {scenario.name for scenario in found.scenarios}
        own = [problem for problem in found.problems if not any(problem in mine for mine in found.broken.values())]
        unread = [("(the file)", own)] if own else []  # the file itself, and each scenario too wrong to be read as one
        unread += [(name, list(mine)) for name, mine in found.broken.items() if name not in named]
        errors += [Result(found.path, problems[0].line or 1, name, ERROR, problems=problems) for name, problems in unread
                   if not pattern or _matches(found.path, pattern) or _matches(name, pattern)]
        for scenario in found.scenarios:
            if not (not pattern or _matches(scenario.path, pattern) or _matches(scenario.name, pattern)):
                continue
            checked = check(built, scenario)
            problems = sorted([*found.broken.get(scenario.name, ()), *checked.problems], key=lambda problem: problem.line or 0)
            if problems:
                errors.append(Result(scenario.path, scenario.line, scenario.name, ERROR, problems=problems))
            else:
                runnable.append(checked)
    return errors, runnable


def _matches(name: str, pattern: str) -> bool:
    """Whether a scenario file or name is selected: it holds `pattern`, or matches it when it has a wildcard."""
    return fnmatch.fnmatchcase(name, pattern) if any(mark in pattern for mark in "*?[") else pattern in name


async def _run(settings: Settings, runnable: list[Checked], server: str, update: bool) -> list[Result]:
    """Run every runnable scenario, one after the other, through one set of clients (`server`: in-process or stdio)."""
    if not runnable:
        return []
    if server == "stdio":
        connect = over_stdio(settings.docroot, settings.project or settings.docroot)
    else:
        connect = in_memory(create_server(settings=settings, watch=False))
    with server_log(server):
        async with Clients(connect) as clients:
            runner = Runner(clients, settings.docroot, update=update, limit=settings.max_file_size)
            return [await runner.run(checked) for checked in runnable]


@contextmanager
def server_log(server: str) -> Iterator[None]:
    """For the run, the server in this process logs as `guide serve` does, its warnings only; then the loggers are as they were."""
    if server == "stdio":  # each server process logs on its own
        yield
        return
    loggers = [logging.getLogger(name) for name in logs.LOGGERS]
    kept = [(logger.level, logger.handlers[:], logger.propagate) for logger in loggers]
    logs.configure("WARNING")
    try:
        yield
    finally:
        for logger, (level, handlers, propagate) in zip(loggers, kept):
            logger.setLevel(level)
            logger.handlers[:] = handlers
            logger.propagate = propagate
