"""Issue 10, item 13: what replaying a continuation state can and cannot do (C8; see docs/security.md).

States are stateless: FastMCP seals each one (authenticated encryption, a TTL,
bound to the address and the client) and Guide keeps no record of which were
used. So a state can be sent again until it expires. Guide accepts that, because
a replay can do nothing a client could not do by starting over: every answer is
checked again, and the state never moves to another address or outlives an edit.
"""

import pytest
from fastmcp import Client
from mcp import MCPError
from mcp_types import ElicitResult, InputRequiredResult, ReadResourceResult

from guide.forms.step import MAX_ASKS
from guide.server.app import create_server

URI = "guide://_ask?mode=quick"


def accept(**content) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


async def _round(client: Client, uri: str, state: str | None = None, **responses: ElicitResult):
    return await client.session.read_resource(uri, request_state=state, input_responses=responses or None, allow_input_required=True)


@pytest.fixture
def modern(root, project):
    """A 2026-07-28 client that declares forms but never answers one itself: every round is driven by hand."""

    async def unanswerable(message, response_type, params, context):
        raise AssertionError(f"a round driven by hand reached the handler: {message}")

    return Client(create_server(root, project, watch=False), mode="2026-07-28", elicitation_handler=unanswerable)


async def test_replaying_the_last_round_renders_with_the_new_answers_checked_again(modern):
    async with modern as client:
        first = await _round(client, URI)
        assert isinstance(first, InputRequiredResult) and list(first.input_requests) == ["numbers"]
        done = await _round(client, URI, first.request_state, numbers=accept(count=3))
        again = await _round(client, URI, first.request_state, numbers=accept(count=7))
        refused = await _round(client, URI, first.request_state, numbers=accept(count=99))
    assert isinstance(done, ReadResourceResult) and "count=3" in done.contents[0].text
    assert isinstance(again, ReadResourceResult) and "count=7" in again.contents[0].text
    assert isinstance(refused, InputRequiredResult)  # asked again: a replay never skips the checks
    assert "greater than the maximum 10" in refused.input_requests["numbers"].params.message


async def test_the_ask_limit_bounds_each_chain_of_rounds(modern):
    async with modern as client:
        first = await _round(client, URI)
        state = first.request_state
        for _ in range(MAX_ASKS - 1):
            result = await _round(client, URI, state, numbers=accept(count=0))
            assert isinstance(result, InputRequiredResult)
            state = result.request_state
        failure = await _error(client, URI, state, numbers=accept(count=0))
        restarted = await _round(client, URI, first.request_state, numbers=accept(count=0))  # round 1 again: a new chain
    assert failure.endswith(f"(asked {MAX_ASKS} times)")
    assert isinstance(restarted, InputRequiredResult)


async def test_a_state_never_moves_to_another_address(modern):
    async with modern as client:
        first = await _round(client, URI)
        for other in ("guide://_ask?mode=careful", "guide://_ask", "guide://_nested/deep"):
            assert "requestState" in await _error(client, other, first.request_state, numbers=accept(count=3))


async def _error(client: Client, uri: str, state: str, **responses: ElicitResult) -> str:
    try:
        await _round(client, uri, state, **responses)
    except MCPError as error:
        return error.error.message
    raise AssertionError("the round was accepted")
