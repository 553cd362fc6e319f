"""Serve one read: resolve it (routes), drive it in the client's protocol era (eras), finish it (routes).

The synchronous work of a read (resolving its address against the docroot,
building a snapshot, reading files, the first step of its forms and rendering)
runs in a worker thread whenever it has anything to read, build or render, so one
slow or huge request never stalls the others; a read answered from what is
already built is answered on the event loop (`offload`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastmcp import Context
from mcp_types import InputRequiredResult

from guide.docroot.folder import Docroot
from guide.forms.resolve import Ask, Request
from guide.routes.finish import finish
from guide.routes.resolve import Call
from guide.server import offload
from guide.server.eras import can_elicit, for_request

ANSWER_TIMEOUT = 600.0
"""Seconds a legacy read waits for the client to answer one form before it fails (people answer forms slowly)."""


@dataclass(frozen=True)
class Service:
    """What every route needs to serve a read: the docroot, and how long to wait for an answer."""

    docroot: Docroot
    answer_timeout: float | None = ANSWER_TIMEOUT

    async def serve(self, ctx: Context, find: Callable[[], str | Call], rendered: Callable[[str], Any] = str) -> Any:
        """The answer to a read `find` resolves: its text, the rendered entrypoint, or the forms to ask first.

        `rendered` wraps the text of a rendered entrypoint (a resource read marks it as never to be cached).
        """
        era, reach = for_request(ctx), can_elicit(ctx)
        opening = era.opening(ctx)

        def start() -> Any:
            found = find()
            if isinstance(found, str):
                return found
            request = found.request(can_elicit=reach)
            outcome = opening(request)
            if isinstance(outcome, Ask):
                return _Asking(found, request, outcome)
            return rendered(finish(self.docroot, found, outcome))

        started = await offload.run(start)
        if not isinstance(started, _Asking):
            return started
        outcome = await era.drive(ctx, started.request, started.asked, answer_timeout=self.answer_timeout)
        if isinstance(outcome, InputRequiredResult):
            return outcome
        return rendered(await offload.run(finish, self.docroot, started.call, outcome))


@dataclass(frozen=True)
class _Asking:
    """A read whose first step asks the client for input."""

    call: Call
    request: Request
    asked: Ask
