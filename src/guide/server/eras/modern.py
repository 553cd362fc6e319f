"""MCP 2026-07-28: every pending form in one `input_required` result, retried with the answers (C7.8, C8).

The continuation state is Guide's JSON text; FastMCP's request-state boundary
seals it on the way out and unseals it on the retry, before Guide reads it.
"""

from collections.abc import Callable, Mapping
from typing import Any

from fastmcp import Context
from mcp_types import InputRequiredResult

from guide.forms import state
from guide.forms.resolve import Answer, Ask, Fail, Outcome, Request, failed
from guide.server.eras.questions import elicit_request
from guide.text import clip


def continues(ctx: Context) -> bool:
    """Whether the request is the retry of an earlier round (it carries state or answers)."""
    return ctx.request_state is not None or bool(ctx.input_responses)


def opening(ctx: Context) -> Callable[[Request], Outcome]:
    """This round's step: resumed from the state and answers the retry carries (a pure function, safe in any thread)."""
    text, responses = ctx.request_state, ctx.input_responses
    return lambda request: _resume(request, text, responses)


async def drive(ctx: Context, request: Request, asked: Ask, *, answer_timeout: float | None = None) -> InputRequiredResult:
    """The forms to ask, with the state to carry to the retry (nothing is awaited here, so there is no wait to bound)."""
    return InputRequiredResult(
        input_requests={question.form: elicit_request(question) for question in asked.questions},
        request_state=state.encode(request, asked.progress),
    )


def _resume(request: Request, text: str | None, responses: Mapping[str, Any] | None) -> Outcome:
    answers = _answers(request, responses)
    return answers if isinstance(answers, Fail) else state.resume(request, text, answers)


def _answers(request: Request, responses: Mapping[str, Any] | None) -> dict[str, Answer] | Fail:
    answers = {}
    for form_id, response in (responses or {}).items():
        action = getattr(response, "action", None)
        if action not in ("accept", "decline", "cancel"):
            return failed(request, "invalid", f"the response for {clip(str(form_id))} is not an elicitation result")
        answers[form_id] = Answer(action, getattr(response, "content", None))
    return answers
