"""Serve one read: resolve it (routes), take its forms to the person by a channel in the client's protocol era (channels, eras), finish it (routes).

A read is a value (`guide.routes.lookup.Read`). What the event loop does is an
explicit question to the docroot's build: is what this read needs built? Then it
is answered on the loop: the resolution was kept, the forms' step is pure, the
rendered text was kept. Anything else (building the snapshot, resolving, reading
a document, rendering) continues in a worker thread from what is already
resolved (`guide.server.work`); nothing is done twice. The forms' step is the
exception when a form checks a value against a pattern only the backtracking
engine runs: then each step runs in one of the few threads kept for such checks,
and all of a request's checks share one time budget (`keywords.request_budget`).
"""

import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from anyio import CapacityLimiter
from fastmcp import Context

from guide.docroot import sources
from guide.docroot.built import Built
from guide.docroot.folder import Docroot
from guide.docroot.memo import MEGA, UNBUILT, Kept, Unbuilt
from guide.docroot.projects import Projects
from guide.errors import GuideError
from guide.forms.keywords import request_budget
from guide.forms.sources import Live
from guide.forms.step import Ask, Fail, Outcome, Render, Request
from guide.protocol import PROJECT
from guide.render import MAX_OUTPUT
from guide.routes.finish import document_text, finish, keeps, rendered_before
from guide.routes.lookup import AddressRead, Call, CommandRead, Document, Read, Resolved, resolve
from guide.server import metrics, work
from guide.server.channels import Channel, Channels, Declared
from guide.server.eras import Era, Eras, Opening, Pending
from guide.server.errors import guarded
from guide.server.metrics import Metrics
from guide.server.sizes import check_sendable
from guide.text import clip

T = TypeVar("T")
ANSWER_TIMEOUT = 600.0
"""Seconds a legacy read waits for the client to answer one form before it fails (people answer forms slowly)."""
RESOLVED: Kept["Resolved | _Refused"] = Kept("resolved reads, by the read value", 1024, 8 * MEGA)
ANSWERED: Kept[str] = Kept("the text a fresh read (no continuation) renders at once, by the read, the channel, the phase and the project",
                           1024, 8 * MEGA)
KEPT_LENGTH = 1024
"""Reads longer than this (their address or prompt line) are resolved each time: the memo must stay small."""


@dataclass(frozen=True)
class _Refused:
    """A read that resolved to an error, kept so the same read fails the same way without resolving again."""

    kept: GuideError
    """Never raised itself: kept requests apart (no traceback holding one request's frames, no context)."""

    @classmethod
    def of(cls, error: GuideError) -> "_Refused":
        """Keep what `error` says, without the frames and context of the request that raised it."""
        return cls(_copy(error))

    def error(self) -> GuideError:
        """A fresh error saying what the kept one says, for one request to raise."""
        return _copy(self.kept)


def _copy(error: GuideError) -> GuideError:
    """`error`'s message and attributes in a new exception object, never raised (no traceback, cause or context)."""
    fresh = type(error).__new__(type(error), *error.args)
    fresh.__dict__.update(error.__dict__)
    return fresh


@dataclass(frozen=True)
class _Round:
    """One request of a read (a round, on 2026-07-28), with the era and the channel picked for it once, from its client's declaration."""

    ctx: Context
    read: Read
    era: Era
    channel: Channel
    declared: Declared


@dataclass(frozen=True)
class Asking:
    """A round that asks: the core's request and the forms it asks, with the progress to carry."""

    request: Request
    asked: Ask


@dataclass(frozen=True)
class Service:
    """What every route needs to serve a read: the docroot, the protocol eras, the channels, how long to wait for an answer, and the output cap of a render."""

    docroot: Docroot
    eras: Eras = field(default_factory=Eras)
    channels: Channels = field(default_factory=Channels)
    answer_timeout: float | None = ANSWER_TIMEOUT
    max_output: int = MAX_OUTPUT
    metrics: Metrics = field(default_factory=lambda: Metrics(counters=None, access=False))
    slow_checks: CapacityLimiter = field(default_factory=work.slow_checks)
    projects: Projects = field(default_factory=Projects)
    """The projects a read may name (C10, `--projects-under`); by default none but the docroot's own."""
    source_reads: CapacityLimiter = field(default_factory=work.source_reads)
    """At most this many live sources (`git-*`, `files:`) read at once, reads and completions together."""

    async def read(self, ctx: Context, read: Read, *, tool: bool = False, rendered: Callable[[str], Any] = str) -> Any:
        """The answer to `read`, with Guide's errors translated for the client (an error result for the tool).

        `rendered` wraps the text of a rendered entrypoint (a resource read marks it as never to be cached).
        The era and the channel are chosen here, once per read.
        """
        declared = Declared.of(ctx)  # read once: the channel and its links are decided from it
        served = _Round(ctx, read, self.eras.for_request(ctx), self.channels.for_request(declared), declared)
        sent = partial(_sendable, ctx, read, 2 if tool else 1)  # the tool's result carries its text twice (content and structured)
        return await guarded(lambda: self._observed(served, sent, rendered), served.era.error, tool=tool)

    async def guarded(self, ctx: Context, read: Read, channel: str, work: Callable[[Era], Awaitable[T]], *, tool: bool = False) -> T:
        """Run a request's `work` on `read` outside `read()` (the App form's rounds, in `channel`), in the request's era: counted and
        logged as a read, its Guide errors said as that era says them."""
        era = self.eras.for_request(ctx)

        async def observed() -> T:
            with self.metrics.reading(read, era.name, channel):
                return await work(era)

        return await guarded(observed, era.error, tool=tool)

    async def _observed(self, served: _Round, sent: Callable[[str], str], rendered: Callable[[str], Any]) -> Any:
        with self.metrics.reading(served.read, served.era.name, served.channel.name):
            found = await self._found(served.read)
            if not isinstance(found, Call):
                return sent(found)
            return await self._call(served, found, lambda text: rendered(sent(text)))

    async def _found(self, read: Read) -> str | Call:
        """What `read` names in the current snapshot: text (help, a document), or a call to drive; a refused read raises."""
        found = await work.built_or_build(self.docroot, lambda built: built.recall(RESOLVED, read), lambda built: _resolve(built, read, self.docroot.project))
        if isinstance(found, _Refused):
            raise found.error()
        if isinstance(found, str):
            metrics.resolved("help")
            return found
        if isinstance(found, Document):
            metrics.resolved("document")
            return await work.off_loop(document_text, self.docroot, found)
        metrics.resolved(found.entrypoint.kind, found.entrypoint.uri, found.keywords, len(found.args))
        return found

    async def project_of(self, ctx: Context | None, call: Call, era: Era | None) -> Call:
        """`call` with the project of this read (`Call.project`, C10): the folder its `project` keyword names (checked against
        `--projects-under`), else on the legacy protocol the client's one root inside that folder, else the docroot's own project."""
        given = call.keywords.get(PROJECT)
        project: Path | None = None
        if given is not None:
            project = await work.off_loop(self.projects.named, given)
        elif self.projects.under is not None and ctx is not None and era is not None:
            roots = await era.roots(ctx)
            project = await work.off_loop(self.projects.rooted, roots) if roots else None
        if project is None and call.project is not None:
            return call  # the docroot's own, given when it was resolved: a copy per read would cost 5 us of a 100 us read
        return replace(call, project=project or self.docroot.project)

    def _request(self, call: Call, *, can_elicit: bool, phase: str | None, live: dict[str, Live], url_mode: bool = False) -> Request:
        """The core's request of a call whose project is known; its state carries the project when it is not the docroot's own."""
        named = "" if call.project in (None, self.docroot.project) else str(call.project)
        return call.request(can_elicit=can_elicit, active_phase=phase, project=named, live=live, url_mode=url_mode)

    async def _phase(self, call: Call) -> str | None:
        return await work.built_or_build(self.docroot, lambda built: self.docroot.known_phase(built, call.project),
                                         lambda built: self.docroot.active_phase(built, call.project), built=call.built)

    async def _live(self, call: Call) -> dict[str, Live]:
        """What the call's live sources (`git-*`, `files:`) offer now, read in a worker thread; nothing when it has none."""
        forms = call.entrypoint.forms
        if not forms.live:
            return {}
        project = sources.project_of(self.docroot, call.project)
        return await work.off_loop(sources.derive, forms, project, call.supplied(), limiter=self.source_reads)

    async def _call(self, served: _Round, call: Call, rendered: Callable[[str], Any]) -> Any:
        call = await self.project_of(served.ctx, call, served.era)
        phase, live = await self._phase(call), await self._live(call)
        opening, channel = served.era.opening(served.ctx), served.channel
        links = channel.opens_links(served.declared)
        # A read whose choices are live is answered afresh each time: what it may render depends on the project now.
        fresh = (served.read, channel.name, links, phase, call.project) if not opening.continues and not live else None
        text: str | Unbuilt = call.built.recall(ANSWERED, fresh) if fresh is not None else UNBUILT
        if text is not UNBUILT:
            return rendered(text)
        request = self._request(call, can_elicit=channel.asks, phase=phase, live=live, url_mode=links)
        with _pattern_budget(request):
            outcome = await self._step(request, partial(opening.step, request))  # the pure first step: no file, no build
            if isinstance(outcome, Ask):
                fresh = None  # what the person answers decides the text
                outcome = await channel.carry(served.ctx, served.era, request, outcome, answer_timeout=self.answer_timeout,
                                              stepping=partial(self._step, request))
                if isinstance(outcome, Pending):
                    metrics.ended("asked")
                    return rendered(outcome.reply) if isinstance(outcome.reply, str) else outcome.reply
        text = await self._finish(call, outcome, phase)
        # The same read, fresh, renders the same text until a file changes; a read bringing what no template prints is not kept.
        if fresh is not None and served.read.size <= KEPT_LENGTH and keeps(call):
            call.built.remember(ANSWERED, fresh, text)
        return rendered(text)

    async def _finish(self, call: Call, outcome: Render | Fail, phase: str | None) -> str:
        rendered = partial(finish, call, outcome, phase, max_output=self.max_output)
        return await work.built_or_build(self.docroot, lambda _: rendered_before(call, outcome, phase), lambda _: rendered(), built=call.built)

    async def step(self, read: Read, opening: Opening, ctx: Context | None = None, era: Era | None = None) -> str | Asking:
        """One round of an interaction held outside the protocol (the App form's): the text `read` renders, or the forms it asks.

        `opening` is where the round starts (nothing, or a state and answers).
        The person is asked (`can_elicit`), so defaults are offered, not applied.
        `ctx`, the round's request in `era`, may name the read's project by the client's roots.
        """
        found = await self._found(read)
        if not isinstance(found, Call):
            return found
        found = await self.project_of(ctx, found, era)
        phase = await self._phase(found)
        request = self._request(found, can_elicit=True, phase=phase, live=await self._live(found))
        with _pattern_budget(request):
            outcome = await self._step(request, partial(opening.step, request))
        if isinstance(outcome, Ask):
            return Asking(request, outcome)
        return await self._finish(found, outcome, phase)

    async def _step(self, request: Request, step: Callable[[], Outcome]) -> Outcome:
        """Run one pure step of `request`'s forms: on the loop, or in a slow-check thread when a value may take a time budget."""
        if not request.forms.slow_checks:
            return step()
        return await work.off_loop(step, limiter=self.slow_checks)


def _resolve(built: Built, read: Read, project: Path) -> Resolved | _Refused:
    """Resolve `read` against a build, and keep what it resolved to; a call is about `project` until its read names another."""
    try:
        found: Resolved | _Refused = resolve(built, read)
        if isinstance(found, Call):
            found = replace(found, project=project)  # what most reads are about (`Service.project_of`)
    except GuideError as error:
        found = _Refused.of(error)
    return built.remember(RESOLVED, read, found) if read.size <= KEPT_LENGTH else found


def _pattern_budget(request: Request) -> AbstractContextManager[Any]:
    """The time budget all of a request's slow pattern checks share (`keywords.request_budget`); nothing when it has none."""
    return request_budget(time.monotonic) if request.forms.slow_checks else nullcontext()


def _sendable(ctx: Context, read: Read, copies: int, text: str) -> str:
    """`text`, once it is known to fit in one answer to `read` (`sizes.check_sendable`)."""
    where = clip(read.uri) if isinstance(read, AddressRead) else f"prompt {read.command}" if isinstance(read, CommandRead) else "the guide prompt"
    check_sendable(ctx, where, text, copies)
    return text
