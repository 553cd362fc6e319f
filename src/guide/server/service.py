"""Serve one read: resolve it (routes), drive it in the client's protocol era (eras), finish it (routes).

A read is a value (`guide.routes.resolve.Read`). What the event loop does is an
explicit question to the docroot's build: is what this read needs built? Then it
is answered on the loop: the resolution was kept, the forms' step is pure, the
rendered text was kept. Anything else (building the snapshot, resolving, reading
a document, rendering) continues in a worker thread from what is already
resolved (`guide.server.work`); nothing is done twice.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from fastmcp import Context

from guide.docroot.built import MISSING
from guide.docroot.folder import Docroot
from guide.errors import GuideError
from guide.forms.resolve import Ask
from guide.render import MAX_OUTPUT
from guide.routes.finish import document_text, finish, finished, keeps
from guide.routes.resolve import Call, Document, Read, Resolved, resolve
from guide.server import metrics, work
from guide.server.eras import Eras, Pending, can_elicit
from guide.server.errors import guarded
from guide.server.metrics import Metrics

ANSWER_TIMEOUT = 600.0
"""Seconds a legacy read waits for the client to answer one form before it fails (people answer forms slowly)."""
RESOLVED = "resolved"
"""The build's memo of resolved reads (by the read value)."""
ANSWERED = "answered"
"""The build's memo of the text a fresh read (no continuation) renders at once, by the read, the client's reach and the phase."""
KEPT_LENGTH = 1024
"""Reads longer than this (their address or prompt line) are resolved each time: the memo must stay small."""


@dataclass(frozen=True)
class _Refused:
    """A read that resolved to an error, kept so the same read fails the same way without resolving again."""

    error: GuideError


@dataclass(frozen=True)
class Service:
    """What every route needs to serve a read: the docroot, the protocol eras, how long to wait for an answer, and the output cap of a render."""

    docroot: Docroot
    eras: Eras = field(default_factory=Eras)
    answer_timeout: float | None = ANSWER_TIMEOUT
    max_output: int = MAX_OUTPUT
    metrics: Metrics = field(default_factory=lambda: Metrics(counters=None, access=False))

    async def read(self, ctx: Context, read: Read, *, tool: bool = False, rendered: Callable[[str], Any] = str, channel: str = "native") -> Any:
        """The answer to `read`, with Guide's errors translated for the client (an error result for the tool).

        `rendered` wraps the text of a rendered entrypoint (a resource read marks it as never to be cached);
        `channel` is how its questions reach a person, for the metrics (`guide.server.metrics.CHANNELS`).
        """
        era = self.eras.for_request(ctx)
        return await guarded(lambda: self._observed(ctx, read, rendered, era.name, channel), era.error, tool=tool)

    async def _observed(self, ctx: Context, read: Read, rendered: Callable[[str], Any], era: str, channel: str) -> Any:
        with self.metrics.reading(read, era, channel):
            return await self._serve(ctx, read, rendered)

    async def _serve(self, ctx: Context, read: Read, rendered: Callable[[str], Any]) -> Any:
        found = self._recall(read)
        if found is MISSING:
            found = await work.off_loop(self._resolve, read)
        if isinstance(found, _Refused):
            raise found.error.with_traceback(None)
        if isinstance(found, str):
            metrics.resolved("help")
            return found
        if isinstance(found, Document):
            metrics.resolved("document")
            return await work.off_loop(document_text, self.docroot, found)
        metrics.resolved(found.entrypoint.kind, metrics.without_values(found.entrypoint.uri, found.keywords, len(found.args)))
        return await self._call(ctx, read, found, rendered)

    async def _call(self, ctx: Context, read: Read, call: Call, rendered: Callable[[str], Any]) -> Any:
        era, reach = self.eras.for_request(ctx), can_elicit(ctx)
        known, phase = self.docroot.peek_phase(call.built)
        if not known:
            phase = await work.off_loop(self.docroot.active_phase, call.built)
        fresh = (read, reach, phase) if not era.continues(ctx) else None
        text = call.built.recall(ANSWERED, fresh) if fresh is not None else MISSING
        if text is not MISSING:
            return rendered(text)
        request = call.request(can_elicit=reach, active_phase=phase)
        outcome = era.opening(ctx)(request)  # the pure first step: no file, no build
        if isinstance(outcome, Ask):
            fresh = None  # what the client answers decides the text
            outcome = await era.drive(ctx, request, outcome, answer_timeout=self.answer_timeout)
            if isinstance(outcome, Pending):
                metrics.ended("asked")
                return outcome.reply
        text = finished(call, outcome, phase)
        if text is MISSING:
            text = await work.off_loop(partial(finish, call, outcome, phase, max_output=self.max_output))
        # The same read, fresh, renders the same text until a file changes; a read bringing what no template prints is not kept.
        if fresh is not None and read.size <= KEPT_LENGTH and keeps(call):
            call.built.remember(ANSWERED, fresh, text)
        return rendered(text)

    def _recall(self, read: Read) -> Resolved | _Refused:
        """What `read` resolved to in the current snapshot, if it was resolved before (else `MISSING`)."""
        built = self.docroot.peek()
        return built.recall(RESOLVED, read) if built is not None else MISSING

    def _resolve(self, read: Read) -> Resolved | _Refused:
        """Resolve `read` against the current snapshot (built now if files changed), and keep what it resolved to."""
        built = self.docroot.current()
        try:
            found: Resolved | _Refused = resolve(built, read)
        except GuideError as error:
            found = _Refused(error)
        return built.remember(RESOLVED, read, found) if read.size <= KEPT_LENGTH else found
