"""Drive the core's steps over either protocol era (C7 steps 6-8, C8).

Legacy: ask the first pending form with `elicitation/create`, feed the answer
back, repeat. 2026-07-28: turn one step into an `input_required` result whose
state FastMCP seals, and read the answers on the retry.
"""

from collections.abc import Mapping
from typing import Any

from fastmcp import Context
from mcp import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from guide import resolver
from guide.docroot.index import Snapshot
from guide.errors import InputError
from guide.forms import state
from guide.forms.resolve import Answer, Ask, Fail, Progress, Question, step
from guide.resolver import Call
from guide.server.errors import missing_capability
from guide.uri import Target

FORM_META = "guide/form"
"""The `_meta` key of an elicitation request that names the Guide form it asks for."""


def is_modern(ctx: Context) -> bool:
    """Whether this request speaks MCP 2026-07-28 (else a legacy, handshake-era protocol)."""
    context = ctx.request_context
    return context is not None and context.protocol_version in MODERN_PROTOCOL_VERSIONS


def can_elicit(ctx: Context) -> bool:
    """Whether the client declared form elicitation for this request (a bare `elicitation: {}` means form)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


async def serve(ctx: Context, snapshot: Snapshot, target: Target) -> str | InputRequiredResult:
    """Answer any target: content that never asks, or an entrypoint resolved with the client's help."""
    text = resolver.content(snapshot, target)
    if text is not None:
        return text
    return await answer(ctx, snapshot, resolver.find(snapshot, target))


async def answer(ctx: Context, snapshot: Snapshot, call: Call) -> str | InputRequiredResult:
    """Resolve a call to rendered text, asking the client for pending forms in its own era."""
    modern = is_modern(ctx)
    request = resolver.request(snapshot, call, can_elicit=can_elicit(ctx))
    if modern:
        progress = state.decode(ctx.request_state, request) if ctx.request_state else Progress()
        outcome = step(request, progress, _answers(ctx.input_responses))
        if isinstance(outcome, Ask):
            return InputRequiredResult(
                input_requests={question.form: _elicit_request(question) for question in outcome.questions},
                request_state=state.encode(request, outcome.progress),
            )
    else:
        outcome = step(request)
        while isinstance(outcome, Ask):
            question = outcome.questions[0]
            try:
                result = await ctx.session.send_request(
                    _elicit_request(question), ElicitResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
                )
            except MCPError as error:
                reason = (error.error.message or "no reason given").splitlines()[0]
                raise InputError(f"the client could not answer form {question.form}: {reason}") from None
            outcome = step(request, outcome.progress, {question.form: Answer(result.action, result.content)})
    if isinstance(outcome, Fail) and outcome.kind == "missing" and modern:
        raise missing_capability(outcome.message)
    return resolver.finish(snapshot, call, outcome, request.active_phase)


def _elicit_request(question: Question) -> ElicitRequest:
    """A form elicitation with the declared schema as is, naming its form id in `_meta` for clients that show it."""
    params = ElicitRequestFormParams(message=question.message, requested_schema=question.schema, _meta={FORM_META: question.form})
    return ElicitRequest(params=params)


def _answers(responses: Mapping[str, Any] | None) -> dict[str, Answer]:
    answers = {}
    for form_id, response in (responses or {}).items():
        action = getattr(response, "action", None)
        if action not in ("accept", "decline", "cancel"):
            raise InputError(f"the response for {form_id} is not an elicitation result")
        answers[form_id] = Answer(action, getattr(response, "content", None))
    return answers
