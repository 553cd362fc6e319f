"""Run a Python module under pyinstrument, in segments: `python -m bench.probes.profiled OUTDIR MODULE [ARGS...]`.

The profile is cut into segments whenever the process receives SIGUSR1 (a
driver sends it between phases, e.g. after the first listing) and once more at
exit. Segment N is written to OUTDIR/segment-N.txt (pyinstrument's call tree),
OUTDIR/segment-N-flat.txt (functions by self time), OUTDIR/segment-N.json
(self time by library, and time spent importing) and OUTDIR/segment-N.pyisession
(the raw session).

pyinstrument follows one thread, and a Guide server builds in worker threads
(`guide.server.work`). So each piece of work Guide hands to a worker is
profiled in its thread as well, and a segment's worker profiles are written
beside the main thread's: OUTDIR/segment-N-workers.txt and
OUTDIR/segment-N-workers.json (the same shares, plus the seconds the workers ran).
The main thread's profile is then the event loop's part: FastMCP's and the SDK's
work, and whatever Guide answers on the loop.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import threading
import time
from pathlib import Path

from pyinstrument import Profiler
from pyinstrument.frame import Frame
from pyinstrument.renderers import ConsoleRenderer
from pyinstrument.session import Session

# The first matching fragment of a frame's file path names its library.
LIBRARIES = (
    ("/src/guide/", "guide"), ("/site-packages/guide/", "guide"), ("/fastmcp/", "fastmcp"), ("/mcp_types/", "mcp"), ("/mcp/", "mcp"),
    ("/pydantic_core/", "pydantic"), ("/pydantic/", "pydantic"), ("/yaml/", "yaml"), ("/mstache", "mstache"), ("/re2", "re2"),
    ("/watchfiles/", "watchfiles"), ("/anyio/", "anyio"), ("/json/", "json"), ("/asyncio/", "asyncio"), ("/bench/", "bench"),
    ("<frozen", "import machinery"), ("/platformdirs/", "platformdirs"),
)


def library(frame: Frame) -> str:
    """The library a frame's code belongs to: 'idle' for waiting on input; a built-in counts for its caller's library."""
    path = frame.file_path or ""
    if path.endswith("selectors.py") or frame.function.endswith(("select", ".poll")):
        return "idle"
    if frame.function.startswith(("SchemaSerializer.", "SchemaValidator.")):
        return "pydantic"
    if path == "<built-in>" and frame.parent is not None:
        return library(frame.parent)
    return next((name for fragment, name in LIBRARIES if fragment in path), "stdlib/other")


def shares(root: Frame | None) -> dict:
    """Seconds of self time per library, and the time spent inside imports, of one profile."""
    by_library: dict[str, float] = {}
    importing = 0.0
    stack = [(root, False)] if root is not None else []
    while stack:
        frame, in_import = stack.pop()
        is_import = frame.function == "_find_and_load" and not in_import
        if is_import:
            importing += frame.time
        if not frame.is_synthetic:  # a synthetic frame's time is already its parent's self time
            name = library(frame)
            by_library[name] = by_library.get(name, 0.0) + frame.total_self_time
        stack.extend((child, in_import or is_import) for child in frame.children)
    total = root.time if root is not None else 0.0
    ordered = dict(sorted(by_library.items(), key=lambda item: -item[1]))
    return {"total_s": total, "importing_s": importing, "self_s_by_library": ordered}


class Segments:
    """A profiler that writes what it recorded so far, and starts afresh, on demand."""

    def __init__(self, out: Path):
        self.out = out
        self.count = 0
        self.profiler = Profiler(interval=0.001, async_mode="disabled")
        self.workers: list = []
        self.worker_seconds = 0.0
        self.lock = threading.Lock()

    def in_worker(self, work):
        """`work`, profiled in the thread that runs it, its session kept for the current segment."""
        def profiled(*args):
            profiler = Profiler(interval=0.001, async_mode="disabled")
            began = time.perf_counter()
            profiler.start()
            try:
                return work(*args)
            finally:
                profiler.stop()
                with self.lock:
                    self.worker_seconds += time.perf_counter() - began
                    if profiler.last_session is not None:
                        self.workers.append(profiler.last_session)
        return profiled

    def _write_workers(self, stem: Path) -> None:
        with self.lock:
            sessions, seconds = self.workers, self.worker_seconds
            self.workers, self.worker_seconds = [], 0.0
        combined = None
        for session in sessions:
            combined = session if combined is None else Session.combine(combined, session)
        summary = {**shares(combined.root_frame() if combined else None), "worker_wall_s": seconds, "pieces": len(sessions)}
        Path(f"{stem}-workers.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        if combined is not None:
            Path(f"{stem}-workers.txt").write_text(ConsoleRenderer(show_all=False).render(combined), encoding="utf-8")

    def start(self) -> None:
        self.profiler.start()

    def cut(self, *_: object) -> None:
        """Write the current segment and start the next one."""
        self.profiler.stop()
        session = self.profiler.last_session
        stem = self.out / f"segment-{self.count}"
        stem.with_suffix(".txt").write_text(self.profiler.output(ConsoleRenderer(show_all=False)), encoding="utf-8")
        Path(f"{stem}-flat.txt").write_text(self.profiler.output(ConsoleRenderer(flat=True)), encoding="utf-8")
        stem.with_suffix(".json").write_text(json.dumps(shares(session.root_frame() if session else None), indent=2), encoding="utf-8")
        if session is not None:
            session.save(str(stem.with_suffix(".pyisession")))  # for re-rendering: `pyinstrument --load FILE`
        self._write_workers(stem)
        self.count += 1
        self.profiler = Profiler(interval=0.001, async_mode="disabled")
        self.profiler.start()


def _profile_workers(segments: Segments) -> None:
    """Profile the work a Guide server's requests hand to worker threads (patched before Guide's own modules import it).

    Background work (the start check, keeping parses) is left out: nobody waits for it.
    """
    try:
        from guide.server import work
    except ImportError:  # not a Guide process (the baseline server)
        return
    original = work.off_loop

    async def off_loop(function, *args, **options):
        return await original(segments.in_worker(function), *args, **options)

    work.off_loop = off_loop


def main() -> None:
    out, module, args = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    out.mkdir(parents=True, exist_ok=True)
    segments = Segments(out)
    _profile_workers(segments)
    signal.signal(signal.SIGUSR1, segments.cut)
    sys.argv = [module, *args]
    # `guide` ends its process with os._exit; here it must return, so the last segment is written.
    os._exit = lambda status: sys.exit(status)
    segments.start()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        segments.cut()
        segments.profiler.stop()


if __name__ == "__main__":
    main()
