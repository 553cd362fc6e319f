"""MCP 2026-07-28: every pending form in one `input_required` result, retried with the answers (C7.8, C8).

The continuation state is Guide's JSON text; FastMCP's request-state boundary
seals it on the way out and unseals it on the retry, before Guide reads it.
"""

from collections.abc import Mapping
from typing import Any

from fastmcp import Context
from mcp_types import InputRequiredResult

from guide.errors import InputError
from guide.forms import state
from guide.forms.resolve import Answer, Ask, Outcome, Request
from guide.server.eras.questions import elicit_request


async def drive(ctx: Context, request: Request) -> Outcome | InputRequiredResult:
    """One round: `Render` or `Fail` when the interaction is over, else the forms to ask with the state to carry."""
    outcome = state.resume(request, ctx.request_state, _answers(ctx.input_responses))
    if not isinstance(outcome, Ask):
        return outcome
    return InputRequiredResult(
        input_requests={question.form: elicit_request(question) for question in outcome.questions},
        request_state=state.encode(request, outcome.progress),
    )


def _answers(responses: Mapping[str, Any] | None) -> dict[str, Answer]:
    answers = {}
    for form_id, response in (responses or {}).items():
        action = getattr(response, "action", None)
        if action not in ("accept", "decline", "cancel"):
            raise InputError(f"the response for {form_id} is not an elicitation result")
        answers[form_id] = Answer(action, getattr(response, "content", None))
    return answers
