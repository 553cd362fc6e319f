"""Continuation state (C8): rounds driven by hand on 2026-07-28; bad states are refused before any value is used.

Continuation state exists only on 2026-07-28. In legacy mode each test checks the
legacy counterpart where there is one (one request, no state, one snapshot), and is
skipped where there is none.
"""

import pytest
from e2e_support import eventually, read
from fastmcp import Client
from mcp import MCPError
from mcp_types import ElicitResult, InputRequiredResult, ReadResourceResult

from guide.errors import GuideError
from guide.server.app import create_server

FASTMCP_REJECTION = (-32602, "Invalid or expired requestState", {"reason": "invalid_request_state"})


def accept(**content) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


async def first_round(client: Client, uri: str) -> InputRequiredResult:
    result = await client.session.read_resource(uri, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    return result


async def retry(client: Client, uri: str, state: str, **responses: ElicitResult):
    return await client.session.read_resource(uri, request_state=state, input_responses=responses, allow_input_required=True)


async def retry_error(client: Client, uri: str, state: str, **responses: ElicitResult) -> MCPError:
    with pytest.raises(MCPError) as info:
        await retry(client, uri, state, **responses)
    return info.value


def only_on_2026(mode: str) -> None:
    if mode == "legacy":
        pytest.skip("continuation state exists only on 2026-07-28; a legacy interaction is one request")


def unanswerable():
    async def handler(message, response_type, params, context):
        raise AssertionError(f"a manually driven round must not reach the handler: {message}")

    return handler


async def until_help_shows(client: Client, uri: str, text: str) -> None:
    """Wait (bounded) until the watching server serves the edited docroot."""

    async def check():
        return text in await read(client, uri)

    await eventually(check, timeout=5.0)


# --- a clean interaction ------------------------------------------------------------------------


async def test_rounds_driven_by_hand(server, connect, mode, elicitor):
    if mode == "legacy":  # one request: the questions travel as elicitation/create, no state reaches the client
        elicitor.answer(mode={"mode": "branch"}, reference={"reference": "r"})
        async with connect(server, elicitor) as client:
            result = await client.session.read_resource("guide://_review", allow_input_required=True)
        assert isinstance(result, ReadResourceResult)
        assert result.contents[0].text.strip() == "REVIEW mode=branch reference=r extra="
        assert elicitor.keys == ["mode", "reference"]
        return
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_review")
        assert list(one.input_requests) == ["target"]
        assert one.input_requests["target"].params.message == "Choose what to review."
        two = await retry(client, "guide://_review", one.request_state, target=accept(mode="branch"))
        assert isinstance(two, InputRequiredResult) and list(two.input_requests) == ["reference"]
        assert two.request_state != one.request_state
        done = await retry(client, "guide://_review", two.request_state, reference=accept(reference="feature/z"))
    assert isinstance(done, ReadResourceResult)
    assert done.contents[0].text.strip() == "REVIEW mode=branch reference=feature/z extra="


async def test_every_pending_form_is_requested_at_once(server, connect, mode):
    only_on_2026(mode)
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_withpartial")
        assert list(one.input_requests) == ["main", "extra"]
        done = await retry(client, "guide://_withpartial", one.request_state, main=accept(topic="a"), extra=accept(note="b"))
    assert done.contents[0].text.strip() == "WITH topic=a note=b warehouse=[]"


async def test_invalid_answer_is_requested_again_in_the_next_round(server, connect, mode):
    only_on_2026(mode)
    uri = "guide://_review?mode=branch"
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, uri)
        again = await retry(client, uri, one.request_state, reference=accept(reference="bad ref"))
        assert isinstance(again, InputRequiredResult) and list(again.input_requests) == ["reference"]
        message = again.input_requests["reference"].params.message
        assert message.startswith("Enter the branch or pull request.") and "[A-Za-z0-9._/-]+" in message
        done = await retry(client, uri, again.request_state, reference=accept(reference="ok"))
    assert done.contents[0].text.strip() == "REVIEW mode=branch reference=ok extra="


# --- states that must be refused ----------------------------------------------------------------


async def test_tampered_state_is_rejected(server, connect, mode):
    only_on_2026(mode)
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_review")
        state = one.request_state
        flipped = state[:-4] + ("AAAA" if state[-4:] != "AAAA" else "BBBB")
        errors = [
            await retry_error(client, "guide://_review", flipped, target=accept(mode="branch")),
            await retry_error(client, "guide://_review", "v1." + state[3:][::-1], target=accept(mode="branch")),
            await retry_error(client, "guide://_review", "not a state", target=accept(mode="branch")),
        ]
    for error in errors:
        assert (error.error.code, error.error.message, error.error.data) == FASTMCP_REJECTION


async def test_state_replayed_on_another_address_is_rejected(server, connect, mode):
    only_on_2026(mode)
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_review")
        errors = [
            await retry_error(client, "guide://_depth", one.request_state, target=accept(mode="branch")),
            await retry_error(client, "guide://_review?mode=branch", one.request_state, target=accept(mode="branch")),
            await retry_error(client, "guide://_cr", one.request_state, target=accept(mode="branch")),
        ]
        with pytest.raises(MCPError) as tool:
            await client.session.call_tool(
                "read_resource", {"uri": "guide://_review"}, request_state=one.request_state,
                input_responses={"target": accept(mode="branch")}, allow_input_required=True,
            )
    for error in [*errors, tool.value]:
        assert (error.error.code, error.error.message, error.error.data) == FASTMCP_REJECTION


async def test_answers_for_forms_not_requested_are_rejected(server, connect, mode):
    only_on_2026(mode)
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_review")
        extra = await retry_error(client, "guide://_review", one.request_state, target=accept(mode="branch"), reference=accept(reference="x"))
        unknown = await retry_error(client, "guide://_review", one.request_state, bogus=accept(x="y"))
        with pytest.raises(MCPError) as stateless:
            await client.session.read_resource("guide://_review", input_responses={"target": accept(mode="branch")}, allow_input_required=True)
    assert extra.error.message == "answers for forms that were not requested: reference"
    assert unknown.error.message == "answers for forms that were not requested: bogus"
    assert "target" in stateless.value.error.message and "not requested" in stateless.value.error.message


async def test_state_for_an_alias_that_now_names_another_command_is_rejected(server, connect, docroot, mode):
    only_on_2026(mode)
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_cr")
        review = docroot.root / "_commands" / "review.md"
        review.write_text(review.read_text().replace("aliases: [cr]\n", ""), encoding="utf-8")
        depth = docroot.root / "_commands" / "depth.md"
        depth.write_text(depth.read_text().replace("description:", "aliases: [cr]\ndescription:", 1), encoding="utf-8")
        await until_help_shows(client, "guide://_help/cr", "How deep should it go?")
        error = await retry_error(client, "guide://_cr", one.request_state, target=accept(mode="branch"))
    message = error.error.message
    assert "guide://_review" in message and "guide://_depth" in message and "start again" in message
    assert "\n" not in message


async def test_state_from_before_a_form_edit_is_rejected(server, connect, docroot, mode, elicitor):
    review = docroot.root / "_commands" / "review.md"
    edited = review.read_text().replace("enum: [uncommitted, branch, pull-request]", "enum: [uncommitted, branch, pull-request, tag]")
    if mode == "legacy":  # an in-flight legacy interaction keeps the forms it started with
        elicitor.answer(mode={"mode": "uncommitted"})

        async def edit_then_answer(message, response_type, params, context):
            review.write_text(edited, encoding="utf-8")
            return await elicitor.handle(message, response_type, params, context)

        async with Client(server, mode=mode, elicitation_handler=edit_then_answer) as client:
            text = await read(client, "guide://_review")
            await until_help_shows(client, "guide://_help/review", "tag")
            elicitor.answer(mode={"mode": "tag"})
            again = await read(client, "guide://_review")
        assert text.strip() == "REVIEW mode=uncommitted reference= extra="
        assert again.strip() == "REVIEW mode=tag reference= extra="
        assert "tag" in elicitor.calls[-1].schema["properties"]["mode"]["enum"]
        return
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_review")
        review.write_text(edited, encoding="utf-8")
        await until_help_shows(client, "guide://_help/review", "tag")
        # the answer is invalid too: the state is refused first, before any value is looked at
        stale = await retry_error(client, "guide://_review", one.request_state, target=accept(mode="bad mode"))
        fresh = await first_round(client, "guide://_review")
        done = await retry(client, "guide://_review", fresh.request_state, target=accept(mode="tag"))
    message = stale.error.message
    assert "edited" in message and "start again" in message and "\n" not in message
    assert "bad mode" not in message
    assert done.contents[0].text.strip() == "REVIEW mode=tag reference= extra="


async def test_state_from_before_a_partial_edit_is_rejected(server, connect, docroot, mode):
    only_on_2026(mode)
    partial = docroot.root / "_partials" / "extra.md"
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_showpartial")
        partial.write_text(partial.read_text().replace("note: {type: string}", "note: {type: string, maxLength: 9}"), encoding="utf-8")
        await until_help_shows(client, "guide://_help/showpartial", "9")
        error = await retry_error(client, "guide://_showpartial", one.request_state, extra=accept(note="x"))
    assert "edited" in error.error.message and "start again" in error.error.message


async def test_body_edit_between_rounds_keeps_the_interaction(server, connect, docroot, mode):
    only_on_2026(mode)
    depth = docroot.root / "_commands" / "depth.md"
    async with Client(server, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_depth")
        depth.write_text(depth.read_text().replace("DEPTH {{kwargs.depth}}", "NEW DEPTH BODY {{kwargs.depth}}"), encoding="utf-8")

        async def body_changed():
            return "NEW DEPTH BODY" in await read(client, "guide://_depth?depth=quick")

        await eventually(body_changed, timeout=5.0)
        done = await retry(client, "guide://_depth", one.request_state, depth=accept(depth="thorough"))
    assert done.contents[0].text.strip() == "NEW DEPTH BODY thorough"


# --- sealing keys -------------------------------------------------------------------------------


async def test_state_continues_on_another_server_with_the_same_keys(docroot, mode, monkeypatch):
    only_on_2026(mode)
    monkeypatch.setenv("GUIDE_STATE_KEYS", "k" * 40 + "," + "j" * 40)
    first, second = (create_server(docroot.root, docroot.project, watch=False) for _ in range(2))
    monkeypatch.delenv("GUIDE_STATE_KEYS")
    stranger = create_server(docroot.root, docroot.project, watch=False)
    async with Client(first, mode=mode, elicitation_handler=unanswerable()) as client:
        one = await first_round(client, "guide://_depth")
    async with Client(second, mode=mode, elicitation_handler=unanswerable()) as client:
        done = await retry(client, "guide://_depth", one.request_state, depth=accept(depth="thorough"))
    async with Client(stranger, mode=mode, elicitation_handler=unanswerable()) as client:
        error = await retry_error(client, "guide://_depth", one.request_state, depth=accept(depth="thorough"))
    assert done.contents[0].text.strip() == "DEPTH thorough"
    assert (error.error.code, error.error.message, error.error.data) == FASTMCP_REJECTION


def test_short_state_keys_are_refused(docroot, monkeypatch):
    monkeypatch.setenv("GUIDE_STATE_KEYS", "short")
    with pytest.raises(GuideError, match="GUIDE_STATE_KEYS"):
        create_server(docroot.root, docroot.project, watch=False)

