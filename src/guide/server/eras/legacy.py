"""The handshake era (2025-11-25 and older): ask each pending form with `elicitation/create`, in turn (C7.7)."""

from collections.abc import Callable

from fastmcp import Context
from mcp import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import REQUEST_TIMEOUT, ElicitResult
from pydantic import ValidationError

from guide.errors import InputError
from guide.forms.resolve import Answer, Ask, Outcome, Request, step
from guide.server.eras.questions import elicit_request


def opening(ctx: Context) -> Callable[[Request], Outcome]:
    """The first step of a request: nothing has been answered yet (a pure function, safe in any thread)."""
    return step


async def drive(ctx: Context, request: Request, asked: Ask, *, answer_timeout: float | None = None) -> Outcome:
    """Resolve an asking request to `Render` or `Fail`, asking the client one form at a time in this request.

    Each form waits at most `answer_timeout` seconds: a client that never answers
    (or whose answer the SDK dropped as unreadable) ends the read with a clear error.
    """
    outcome: Outcome = asked
    while isinstance(outcome, Ask):
        question = outcome.questions[0]
        result = await _ask(ctx, question.form, elicit_request(question), answer_timeout)
        outcome = step(request, outcome.progress, {question.form: Answer(result.action, result.content)})
    return outcome


async def _ask(ctx: Context, form: str, request, answer_timeout: float | None) -> ElicitResult:
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        return await ctx.session.send_request(request, ElicitResult, request_read_timeout_seconds=answer_timeout, metadata=metadata)
    except MCPError as error:
        if error.error.code == REQUEST_TIMEOUT:
            raise InputError(f"the client did not answer form {form} within {answer_timeout:g} seconds") from None
        reason = (error.error.message or "no reason given").splitlines()[0]
        raise InputError(f"the client could not answer form {form}: {reason}") from None
    except ValidationError:
        raise InputError(f"the answer to form {form} is not an elicitation result: its content must map field names to values") from None
