"""The handshake era (2025-11-25 and older): ask each pending form with `elicitation/create`, in turn (C7.7)."""

from fastmcp import Context
from mcp import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitResult

from guide.errors import InputError
from guide.forms.resolve import Answer, Ask, Outcome, Request, step
from guide.server.eras.questions import elicit_request


async def drive(ctx: Context, request: Request) -> Outcome:
    """Resolve a request to `Render` or `Fail`, asking the client one form at a time in this request."""
    outcome = step(request)
    while isinstance(outcome, Ask):
        question = outcome.questions[0]
        try:
            result = await ctx.session.send_request(
                elicit_request(question), ElicitResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
            )
        except MCPError as error:
            reason = (error.error.message or "no reason given").splitlines()[0]
            raise InputError(f"the client could not answer form {question.form}: {reason}") from None
        outcome = step(request, outcome.progress, {question.form: Answer(result.action, result.content)})
    return outcome
