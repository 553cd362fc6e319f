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
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from anyio import CapacityLimiter
from fastmcp import Context

from guide.docroot.built import Built
from guide.docroot.folder import Docroot
from guide.docroot.memo import MEGA, UNBUILT, Kept, Unbuilt
from guide.errors import GuideError
from guide.forms.declines import unread
from guide.forms.keywords import request_budget
from guide.forms.step import Ask, Fail, Outcome, Render, Request
from guide.project.context import Contexts, ReadContext
from guide.render import MAX_OUTPUT
from guide.routes.bundle import bundle_text
from guide.routes.finish import document_text, finish, keeps, rendered_before, sees_phase
from guide.routes.lookup import AddressRead, Bundle, Call, CommandRead, Document, Read, Resolved, resolve
from guide.server import metrics, work
from guide.server.channels import Channel, Channels
from guide.server.channels.clients import Clients
from guide.server.clients import note_unread
from guide.server.eras import Era, Eras, Opening, Pending
from guide.server.errors import answer_to
from guide.server.metrics import Metrics
from guide.server.sizes import check_result, check_sendable
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


@dataclass(frozen=True, slots=True)
class Turn:
    """One request of a read: the channel that takes its forms to the person, where it starts, and whether links are opened.

    `ctx` and `era` are the request's own (None outside the protocol: `guide render`).
    """

    channel: Channel
    opening: Opening = field(default_factory=Opening)
    links: bool = False
    ctx: Context | None = None
    era: Era | None = None
    declines: float = 0.0
    """A decline sooner than this many seconds after its form went out is no person's (the client's, `Declared.declines`)."""
    observe: Callable[[Request, Outcome], None] | None = None
    """Told the core's request and the outcome it ends in, before it is rendered (`guide render` explains each form by them)."""


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
    contexts: Contexts = field(kw_only=True)
    """The project of each read, its phase and its live choices (C10): decided there, never defaulted here."""
    source_reads: CapacityLimiter = field(default_factory=work.source_reads)
    """At most this many live sources (`git-*`, `files:`) read at once, reads and completions together."""
    clients: Clients | None = None
    """What each request's client can take: its declaration as the client table corrects it (None: the docroot's table, the default bound)."""

    def __post_init__(self) -> None:
        if self.clients is None:
            object.__setattr__(self, "clients", Clients(self.docroot))

    async def read(self, ctx: Context, read: Read, *, tool: bool = False, rendered: Callable[[str], Any] = str) -> Any:
        """The answer to `read`, with Guide's errors translated for the client (an error result for the tool).

        `rendered` wraps the text of a rendered entrypoint (a resource read marks it as never to be cached).
        The era and the channel are chosen here, once per read, from the client's declaration (read once) as the client table corrects it.
        """
        declared = await self.clients.declared(ctx)  # type: ignore[union-attr]  # set in __post_init__
        era, channel = self.eras.for_request(ctx), self.channels.for_request(declared)
        sent = partial(_sendable, ctx, read, tool)
        try:
            with self.metrics.reading(read, era.name, channel.name, declared.client):
                opening = era.opening(ctx)  # counts the answers it carries
                turn = Turn(channel, opening, channel.opens_links(declared), ctx, era, declared.declines)
                found = await self.find(read)
                if not isinstance(found, Call):
                    return sent(found)
                answered = await self.call(read, found, turn)
                if isinstance(answered, Pending):
                    return rendered(answered.reply) if isinstance(answered.reply, str) else answered.reply
                return rendered(sent(answered))
        except Exception as error:
            return answer_to(error, era.error, tool=tool)

    async def guarded(self, ctx: Context, read: Read, channel: str, work: Callable[[Era], Awaitable[T]], *, tool: bool = False) -> T:
        """Run a request's `work` on `read` outside `read()` (the App form's rounds, in `channel`), in the request's era: counted and
        logged as a read, its Guide errors said as that era says them."""
        era = self.eras.for_request(ctx)
        try:
            with self.metrics.reading(read, era.name, channel):
                result = await work(era)
                if tool:
                    check_result(ctx, _where(read), result)  # type: ignore[arg-type]
                return result
        except Exception as error:
            return answer_to(error, era.error, tool=tool)

    async def find(self, read: Read) -> str | Call:
        """What `read` names in the current snapshot: text (help, a document, a bundle), or a call to drive; a refused read raises."""
        found = await work.built_or_build(self.docroot, lambda built: built.recall(RESOLVED, read), lambda built: _resolve(built, read))
        if isinstance(found, _Refused):
            raise found.error()
        if isinstance(found, str):
            metrics.resolved("help")
            return found
        if isinstance(found, Document):
            metrics.resolved("document")
            return await work.off_loop(document_text, self.docroot, found)
        if isinstance(found, Bundle):
            metrics.resolved("bundle")
            return await work.off_loop(partial(bundle_text, max_output=self.max_output), self.docroot, found)
        metrics.resolved(found.entrypoint.kind, found.entrypoint.uri, found.keywords, len(found.args))
        return found

    async def call(self, read: Read, call: Call, turn: Turn) -> str | Pending:
        """Drive one request of `call` (read as `read`) through its turn's channel: the rendered text, or the reply that waits for answers.

        Every way of reading an entrypoint ends here: a protocol read, the App form's rounds and `guide render`.
        """
        context = await self.context_of(call, turn)
        opening, channel = turn.opening, turn.channel
        # A read whose choices are live is answered afresh each time: what it may render depends on the project now.
        fresh = (read, channel.name, turn.links, context.phase, context.named) if not opening.continues and not context.live else None
        text: str | Unbuilt = call.built.recall(ANSWERED, fresh) if fresh is not None else UNBUILT
        if text is not UNBUILT:
            return text
        request = call.request(can_elicit=channel.asks, active_phase=context.phase, project=context.named, live=context.live, url_mode=turn.links,
                               unread_decline=turn.declines)
        with _pattern_budget(request):
            outcome = await self._step(request, partial(opening.step, request))  # the pure first step: no file, no build
            declined = unread(request, opening.answers) if isinstance(opening.answers, Mapping) and request.can_elicit else None
            if declined is not None:
                note_unread(turn.ctx, request, *declined)
            if isinstance(outcome, Ask):
                fresh = None  # what the person answers decides the text
                outcome = await channel.carry(turn.ctx, turn.era, request, outcome, answer_timeout=self.answer_timeout,
                                              stepping=partial(self._step, request))
                if isinstance(outcome, Pending):
                    metrics.ended("asked")
                    return outcome
        if turn.observe is not None:
            turn.observe(request, outcome)
        text = await self._finish(call, outcome, context.phase)
        # The same read, fresh, renders the same text until a file changes; a read bringing what no template prints is not kept.
        if fresh is not None and read.size <= KEPT_LENGTH and keeps(call):
            call.built.remember(ANSWERED, fresh, text)
        return text

    async def context_of(self, call: Call, turn: Turn) -> ReadContext:
        """The project of `call`, its phase and its live choices (C10), decided once per read: on the loop when all is known."""
        contexts, forms, keywords = self.contexts, call.entrypoint.forms, call.keywords
        roots = await turn.era.roots(turn.ctx) if turn.era is not None and turn.ctx is not None and contexts.asks_roots(keywords) else ()
        phased = forms.phased or sees_phase(call)  # a read that never shows the phase need not look at the state file
        return await work.built_or_build(self.docroot, lambda built: contexts.known(built, forms, keywords, roots, phased=phased, supplied=call.supplied),
                                         lambda built: contexts.decide(built, forms, keywords, call.supplied(), roots, phased=phased),
                                         built=call.built, limiter=self.source_reads if forms.live else None)

    async def _finish(self, call: Call, outcome: Render | Fail, phase: str | None) -> str:
        rendered = partial(finish, call, outcome, phase, max_output=self.max_output)
        return await work.built_or_build(self.docroot, lambda _: rendered_before(call, outcome, phase), lambda _: rendered(), built=call.built)

    async def _step(self, request: Request, step: Callable[[], Outcome]) -> Outcome:
        """Run one pure step of `request`'s forms: on the loop, or in a slow-check thread when a value may take a time budget."""
        if not request.forms.slow_checks:
            return step()
        return await work.off_loop(step, limiter=self.slow_checks)


def _resolve(built: Built, read: Read) -> Resolved | _Refused:
    """Resolve `read` against a build, and keep what it resolved to."""
    try:
        found: Resolved | _Refused = resolve(built, read)
    except GuideError as error:
        found = _Refused.of(error)
    return built.remember(RESOLVED, read, found) if read.size <= KEPT_LENGTH else found


def _pattern_budget(request: Request) -> AbstractContextManager[Any]:
    """The time budget all of a request's slow pattern checks share (`keywords.request_budget`); nothing when it has none."""
    return request_budget(time.monotonic) if request.forms.slow_checks else nullcontext()


def _sendable(ctx: Context, read: Read, tool: bool, text: str) -> str:
    """`text`, once it is known to fit in one answer to `read`, or in the result of a tool (`sizes`)."""
    where = _where(read)
    check_result(ctx, where, text) if tool else check_sendable(ctx, where, text)
    return text


def _where(read: Read) -> str:
    """How a message names what `read` asked for."""
    return clip(read.uri) if isinstance(read, AddressRead) else f"prompt {read.command}" if isinstance(read, CommandRead) else "the guide prompt"
