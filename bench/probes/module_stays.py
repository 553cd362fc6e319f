"""Count the Guide modules one read passes through: `python -m bench.probes.module_stays [--mode MODE] [--answered] [URI]`.

A profile hook (`sys.setprofile`, and `threading.setprofile` for the worker
threads a read hands work to) sees every Python call and return. Each time the
code running in a thread moves from one `guide.*` module to another, that is a
new *stay*; frames of other libraries (FastMCP, the SDK, the standard library)
are passed over, so a call from Guide into FastMCP and back into the same Guide
module is one stay. The figures depend only on the code path, never on the
machine's speed: a read that goes through fewer modules, fewer times, is
simpler to follow.

The read is a cold one: the server is started, its docroot built and its start
check over (it runs in the background once the first requests are answered,
and would otherwise be counted by chance: the probe waits for `report_start`
to end), then the first read of `URI` (default: the bundled example's review
command with its branch missing) is counted, in the client's protocol era
(`--mode`, default 2026-07-28), from the request until its answer. On
2026-07-28 that is the request that asks (its answer is `input_required`);
with `--answered` the client answers each form (a field's default, else its
first choice, else `main`) and retries until the text renders, and every
request of the read is counted. On legacy a read is one request: the forms are
asked and answered inside it.
"""

import argparse
import asyncio
import contextlib
import sys
import threading
from collections import Counter
from pathlib import Path

from fastmcp import Client

from guide.server import startup
from guide.server.app import create_server

DEFAULT_URI = "guide://_review?mode=branch"
"""The bundled example's review command with its branch name missing: one form to ask."""
WARMING = "guide://_review?mode=uncommitted&depth=quick"
"""A read of the same command that asks nothing, made before a `--warm` count."""


class Stays:
    """The Guide modules a thread's calls run in, and how often the running module changed."""

    def __init__(self) -> None:
        self.modules: Counter[str] = Counter()
        self.last: dict[int, str] = {}
        self.on = False

    def hook(self, frame, event, _arg) -> None:
        """The profile hook: a call or return into a Guide module other than the thread's last is a new stay."""
        if not self.on or event not in ("call", "return"):
            return
        name = frame.f_globals.get("__name__", "")
        if not (name == "guide" or name.startswith("guide.")):
            return
        thread = threading.get_ident()
        if self.last.get(thread) != name:
            self.last[thread] = name
            self.modules[name] += 1

    @property
    def count(self) -> int:
        """Module stays in all."""
        return sum(self.modules.values())


class _StartCheck:
    """Knows when the server's start check is over: the start line logged and what was parsed kept (`report_start`)."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        self._original = startup.report_start

    async def _report(self, docroot) -> None:
        try:
            await self._original(docroot)
        finally:
            self.done.set()

    @contextlib.contextmanager
    def watched(self):
        """While in it, the servers started report the end of their start check here."""
        startup.report_start = self._report
        try:
            yield self
        finally:
            startup.report_start = self._original

    async def wait(self) -> None:
        """Until the start check is over (at most a minute: a start that never ends its check is counted as it is)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.done.wait(), 60)


async def _answer(message, response_type, params, context):
    """A person who answers every field: its default if it has one, else its first choice, else a plain branch name."""
    return {name: _value(field) for name, field in params.requested_schema.get("properties", {}).items()}


def _value(field: dict):
    if "default" in field:
        return field["default"]
    choices = field.get("enum") or [choice["const"] for choice in field.get("oneOf", ())]
    return choices[0] if choices else "main"


async def measure(uri: str, mode: str, forms: bool = True, warm: bool = False, answered: bool = False) -> Stays:
    """The stays of the first read of `uri` on a server started on the bundled example, its build already made.

    `warm`: the entrypoint was read once before with other keywords, so only the read's own path is counted
    (not the per-file work of its first read: frontmatter, declared forms, references).
    `answered` (2026-07-28): the client answers and retries until the text renders; else only the request that asks."""
    stays = Stays()
    threading.setprofile(stays.hook)  # before any worker thread starts, so every thread of the server has the hook
    server = create_server(watch=False, no_cache=True)  # nothing kept from another run: every run starts the same
    one_round = mode == "2026-07-28" and forms and not answered
    with _StartCheck().watched() as started:
        async with Client(server, mode=mode, elicitation_handler=_answer if forms else None) as client:
            await client.list_resources()  # the build is made and the first answer has gone out
            if warm:
                await client.read_resource(WARMING)
            await started.wait()
            sys.setprofile(stays.hook)
            stays.on = True
            try:
                if one_round:
                    await client.session.read_resource(uri, allow_input_required=True)  # the input_required result, not retried
                else:
                    await client.read_resource(uri)
            except Exception:  # a read that asks, on a client with no form handler, ends in an error: the path is what counts
                pass
            finally:
                stays.on = False
                sys.setprofile(None)
                threading.setprofile(None)
    return stays


def main() -> None:
    """Print the modules and stays of one cold read."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("uri", nargs="?", default=DEFAULT_URI)
    parser.add_argument("--mode", default="2026-07-28", choices=("legacy", "2026-07-28"))
    parser.add_argument("--agent", action="store_true", help="a client that shows no forms (the read fails with the questions)")
    parser.add_argument("--warm", action="store_true", help="read the entrypoint once before with other keywords")
    parser.add_argument("--answered", action="store_true", help="2026-07-28: count every request until the text renders, not only the one that asks")
    parser.add_argument("--list", action="store_true", help="list each module with its stays")
    options = parser.parse_args()
    stays = asyncio.run(measure(options.uri, options.mode, forms=not options.agent, warm=options.warm, answered=options.answered))
    if options.list:
        for name, count in stays.modules.most_common():
            print(f"{count:5d}  {name}")
    kind = ("agent" if options.agent else "forms") + (", warm" if options.warm else "") + (", answered" if options.answered else "")
    print(f"{len(stays.modules)} modules, {stays.count} stays ({options.mode}, {kind}, {options.uri})")


if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    main()
