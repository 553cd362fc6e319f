"""The handshake era (2025-11-25 and older): ask each pending form with `elicitation/create`, in turn (C7.7).

A read that waits for an answer says so in the log, once when it asks (the
form, the entrypoint and the client's name) and once if it gives up, so that a
client that declares forms but never shows them is visible to the operator.
Over HTTP the wait also ends, within `GONE_POLL` seconds, when the client's
connection for the request closes (a killed client): nobody is left to answer,
and what the read holds is let go at once instead of at `--answer-timeout`.
Listing changes go to every connected session as `notifications/*/list_changed`,
to all at once; a session that does not take one within `NOTIFY_TIMEOUT` is told
no more, so it never holds the others.
"""

import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio
from fastmcp import Context, FastMCP
from mcp import MCPError
from mcp.server.connection import Connection
from mcp.shared.message import ServerMessageMetadata
from mcp_types import REQUEST_TIMEOUT, ElicitRequest, ElicitResult, ListRootsRequest, ListRootsResult
from pydantic import ValidationError
from starlette.requests import Request as HttpRequest

from guide.errors import GuideError
from guide.forms.declines import unread
from guide.forms.failure import Reason
from guide.forms.step import Answer, Ask, Outcome, Request, step, unanswered
from guide.server import metrics
from guide.server.clients import client_name, note_unread
from guide.server.eras.base import FIRST_ROUND, Driven, Opening, Stepping
from guide.server.eras.questions import elicit_request
from guide.server.errors import to_mcp
from guide.server.hooks import Hooks
from guide.server.settings import SETTING
from guide.text import clip

log = logging.getLogger("guide")
TIMEOUT_FLAG = SETTING["answer_timeout"].flag
GONE_POLL = 1.0
"""Seconds between two looks at whether a waiting read's HTTP connection is still open."""
ROOTS_TIMEOUT = 10.0
"""Seconds a client that declares roots has to list them (C10: its one root inside `--projects-under` names the read's project)."""
NOTIFY_TIMEOUT = 10.0
"""Seconds a legacy session has to take one list-changed notification; one that does not is told no more."""


class Legacy:
    """The handshake era: one request holds the whole interaction, asking in turn."""

    name = "legacy"
    long_lived = ()

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.sessions = LegacySessions()
        self.clock = clock
        """How long a form was with the client is measured by this clock (a test's own, to make the time explicit)."""

    def speaks(self, ctx: Context) -> bool:
        """Any request another era does not speak is a legacy one."""
        return True

    def opening(self, ctx: Context) -> Opening:
        """Always a first round: a legacy interaction is one request."""
        return FIRST_ROUND

    async def drive(self, ctx: Context, request: Request, asked: Ask, *, answer_timeout: float | None, stepping: Stepping,
                    ui: str | None = None, titled: bool = True) -> Driven:
        """Resolve an asking request to `Render` or `Fail`, asking the client one form at a time in this request.

        Each form waits at most `answer_timeout` seconds: a client that never answers
        (or whose answer the SDK dropped as unreadable) ends the read with a clear error.
        Each answer carries how long its form was with the client, by which a decline
        no person made is told apart (`guide.forms.declines`).
        """
        outcome: Outcome = asked
        while isinstance(outcome, Ask):
            question = outcome.questions[0]
            metrics.form_asked()
            elicit, sent = elicit_request(question, ui, titled), self.clock()
            result = await _ask(ctx, request, question.form, elicit, answer_timeout)
            metrics.form_answered(result.action)
            answer = Answer(result.action, result.content, self.clock() - sent)
            declined = unread(request, {question.form: answer})
            if declined is not None:
                note_unread(ctx, request, *declined)
            outcome = await stepping(partial(step, request, outcome.progress, {question.form: answer}))
        return outcome

    async def roots(self, ctx: Context) -> tuple[str, ...]:
        """The roots the client declares, asked with `roots/list` within `ROOTS_TIMEOUT`; none if it declares no roots or cannot answer."""
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return ()
        metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
        try:
            listed = await ctx.session.send_request(ListRootsRequest(), ListRootsResult, request_read_timeout_seconds=ROOTS_TIMEOUT, metadata=metadata)
        except (MCPError, ValidationError) as error:
            log.warning("%s declares roots but did not list them (%s); its read is about the default project", client_name(ctx),
                        clip(str(error).splitlines()[0] if str(error) else type(error).__name__, 200))
            return ()
        return tuple(str(root.uri) for root in listed.roots)

    def error(self, error: GuideError) -> MCPError:
        """A Guide error as every era says it."""
        return to_mcp(error)

    def install(self, server: FastMCP) -> None:
        """Record each session as it says `initialize`, to tell it of changes later."""
        Hooks.of(server).add(self.sessions)

    async def announce(self) -> int:
        """Send one list change of each kind to every connected session, all at once; how many sessions there were."""
        connections = list(self.sessions.connections)
        async with anyio.create_task_group() as group:
            for connection in connections:
                group.start_soon(self._tell, connection)
        return len(connections)

    def close(self) -> None:
        """Nothing to let go: a session ends with its connection."""

    async def _tell(self, connection: Connection) -> None:
        with anyio.move_on_after(NOTIFY_TIMEOUT) as waited:
            await connection.send_resource_list_changed()
            await connection.send_prompt_list_changed()
            await connection.send_tool_list_changed()  # the read_resource tool's description holds the catalog
        if waited.cancelled_caught:
            self.sessions.connections.discard(connection)
            log.warning("a legacy session took no list-changed notification within %.0f s; it is told no more", NOTIFY_TIMEOUT)


class LegacySessions:
    """Remembers each handshake-era connection from its `initialize` until it closes (a part of `guide.server.hooks`)."""

    methods = ("initialize",)

    def __init__(self) -> None:
        self.connections: set[Connection] = set()

    async def answered(self, context: Any, result: Any) -> Any:
        """The answer to an `initialize`, once the connection it opened is recorded."""
        session = context.fastmcp_context.session if context.fastmcp_context else None
        # The SDK builds a session per request; the connection behind it lives as long as
        # the client stays. FastMCP 4.2 names it only here (its own PingMiddleware does the same).
        connection = getattr(session, "_connection", None)
        if isinstance(connection, Connection):
            self.connections.add(connection)
            connection.exit_stack.callback(self.connections.discard, connection)
        return result


async def _ask(ctx: Context, request: Request, form: str, elicit: ElicitRequest, answer_timeout: float | None) -> ElicitResult:
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    client = client_name(ctx)
    limit = f"up to {answer_timeout:g} s" if answer_timeout is not None else "without a time limit"
    log.info("waiting for %s to answer form %s of %s (%s)", client, form, request.entrypoint, limit)
    answer = partial(ctx.session.send_request, elicit, ElicitResult, request_read_timeout_seconds=answer_timeout, metadata=metadata)
    try:
        result = await _unless_gone(ctx, answer)
    except MCPError as error:
        if error.error.code == REQUEST_TIMEOUT:
            log.warning("gave up waiting for %s to answer form %s of %s after %g s (%s)", client, form, request.entrypoint, answer_timeout, TIMEOUT_FLAG)
            message = f"the client did not answer form {form} within {TIMEOUT_FLAG} ({answer_timeout:g} seconds)"
            raise _failure(request, form, message) from None
        reason = clip(((error.error.message or "").strip() or "no reason given").splitlines()[0], 200)
        raise _failure(request, form, f"the client could not answer form {form}: {reason}") from None
    except ValidationError:
        message = f"the answer to form {form} is not an elicitation result: its content must map field names to values"
        raise _failure(request, form, message, "invalid") from None
    if result is None:
        log.info("stopped waiting for %s to answer form %s of %s: its connection closed", client, form, request.entrypoint)
        raise _failure(request, form, f"the client went away before it answered form {form}")
    return result


async def _unless_gone(ctx: Context, answer: Callable[[], Awaitable[ElicitResult]]) -> ElicitResult | None:
    """The client's answer; None as soon as the HTTP connection of the request is found closed (never over stdio)."""
    http = ctx.request_context.request if ctx.request_context is not None else None
    if not isinstance(http, HttpRequest):
        return await answer()
    found: list[ElicitResult | Exception] = []
    async with anyio.create_task_group() as group:

        async def wait() -> None:
            try:
                found.append(await answer())
            except Exception as error:  # noqa: BLE001 - raised below, as itself rather than in a group
                found.append(error)
            group.cancel_scope.cancel()

        group.start_soon(wait)
        while not await http.is_disconnected():
            await anyio.sleep(GONE_POLL)
        group.cancel_scope.cancel()
    if found and isinstance(found[0], Exception):
        raise found[0]
    return found[0] if found else None


def _failure(request: Request, form: str, message: str, kind: Reason = "unanswered") -> Exception:
    """The error of a form the client did not answer: its message, and its fields to supply as keywords instead."""
    return unanswered(request, form, message, kind).error
