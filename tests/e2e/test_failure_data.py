"""C7.6, C7.11: every failure names the fields concerned and carries the same as structured data, in both eras.

One test per failure kind (missing, declined, cancelled, invalid, unknown
keyword, state), each asserting the message a person reads and the `data` a
client retries from (docs/errors.md), over resource reads, prompts and the tool.
"""

import pytest
from e2e_support import FORM_CAPABILITY, INVALID_PARAMS, MISSING_CAPABILITY, prompt_error, read, read_error
from fastmcp import Client
from mcp import MCPError
from mcp_types import ElicitResult

MODES = ["uncommitted", "branch", "pull-request"]
MODE_FIELD = {
    "keyword": "mode",
    "form": "target",
    "type": "string",
    "required": True,
    "choices": MODES,
    "default": None,
    "accepts": "one of: uncommitted, branch, pull-request",
}
REFERENCE_FIELD = {
    "keyword": "reference",
    "form": "reference",
    "type": "string",
    "required": True,
    "choices": None,
    "default": None,
    "accepts": "a string matching [A-Za-z0-9._/-]+",
}
MODE_BLANK = "mode=<uncommitted|branch|pull-request>"


def guide_data(error: MCPError, mode: str) -> dict:
    """The failure's own data: on 2026-07-28 a missing-capability error also names the capability it needs."""
    data = dict(error.error.data)
    if error.error.code == MISSING_CAPABILITY:
        assert mode == "2026-07-28"
        assert data.pop("requiredCapabilities") == FORM_CAPABILITY["requiredCapabilities"]
    return data


async def test_c7_6_missing_names_each_field_with_an_example_address(server, connect, mode):
    async with connect(server) as client:
        error = await read_error(client, "guide://_review?mode=branch")
        blank = await read_error(client, "guide://_review")
    summary, _, questions = error.error.message.partition("\n")
    assert summary == (
        "this client cannot answer forms; supply the keywords: reference (string, required; matching [A-Za-z0-9._/-]+); "
        "for example guide://_review?mode=branch&reference=<string>"
    )
    assert questions.startswith("\nDo not guess these values")
    assert error.error.code == (MISSING_CAPABILITY if mode == "2026-07-28" else INVALID_PARAMS)
    data = guide_data(error, mode)
    assert [question["form"] for question in data.pop("questions")] == ["reference"]
    assert data == {
        "reason": "missing",
        "address": "guide://_review",
        "fields": [REFERENCE_FIELD],
        "retry": "guide://_review?mode=branch&reference=<string>",
    }
    assert blank.error.message.partition("\n")[0].endswith(f"for example guide://_review?{MODE_BLANK}")
    assert guide_data(blank, mode)["fields"] == [MODE_FIELD]


async def test_c7_6_the_retry_address_reads_once_its_blanks_are_filled(server, connect, mode):
    async with connect(server) as client:
        error = await read_error(client, "guide://_pair")
        retry = guide_data(error, mode)["retry"]
        assert retry == "guide://_pair?alpha=<string>&zeta=<string>"
        text = await read(client, retry.replace("<string>", "ann", 1).replace("<string>", "bo"))
    assert text.strip() == "PAIR ann bo"


async def test_c7_10_declined_names_the_form_fields_to_supply(server, connect, elicitor, mode):
    elicitor.answer(mode="decline")
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_review")
    assert error.error.message == (
        "form target was declined; to go on without the form, supply its fields as keywords: "
        "mode (string, required; one of: uncommitted, branch, pull-request)"
    )
    assert error.error.code == INVALID_PARAMS
    assert error.error.data == {"reason": "declined", "address": "guide://_review", "fields": [MODE_FIELD], "retry": f"guide://_review?{MODE_BLANK}"}


async def test_c7_10_cancelled_names_the_form_fields_with_their_defaults(server, connect, elicitor, mode):
    elicitor.answer(kind="cancel")
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://$triage?ticket=GD-1")
    assert error.error.message == (
        "form report was cancelled; to go on without the form, supply its fields as keywords: "
        "kind (string, required; one of: bug, feature), urgent (boolean; default false)"
    )
    data = error.error.data
    assert data["reason"] == "cancelled" and data["address"] == "guide://$triage"
    assert data["fields"][1] == {
        "keyword": "urgent",
        "form": "report",
        "type": "boolean",
        "required": False,
        "choices": None,
        "default": False,
        "accepts": "true or false",
    }
    assert data["retry"] == "guide://$triage?ticket=GD-1&kind=<bug|feature>&urgent=<true|false>"


async def test_c6_invalid_keyword_names_the_field_and_what_it_accepts(server, connect, elicitor, mode):
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_typed?count=many&verbose=true")
    assert error.error.message == "invalid keyword count: 'many' is not an integer; it accepts an integer from 1 to 10; default 2"
    assert error.error.data == {
        "reason": "invalid",
        "address": "guide://_typed",
        "fields": [
            {
                "keyword": "count",
                "form": "numbers",
                "type": "integer",
                "required": True,
                "choices": None,
                "default": 2,
                "accepts": "an integer from 1 to 10",
            }
        ],
        "retry": "guide://_typed?verbose=true&count=<integer>",
    }
    assert elicitor.calls == []


async def test_c7_10_an_answer_refused_four_times_is_invalid_naming_its_field(server, connect, elicitor, mode):
    elicitor.answer(email={"email": "not-an-address"})
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_contact")
    assert error.error.message == "form contact: field email: 'not-an-address' is not a valid email; it accepts a string in email format (asked 4 times)"
    data = error.error.data
    assert data["reason"] == "invalid" and [field["keyword"] for field in data["fields"]] == ["email"]
    assert data["retry"] == "guide://_contact?email=<string>"


async def test_c3_unknown_keyword_names_the_field_it_resembles(server, connect, mode):
    async with connect(server) as client:
        error = await read_error(client, "guide://_review?mdoe=branch")
    assert error.error.message == (
        "unknown keyword mdoe; did you mean mode (string, required; one of: uncommitted, branch, pull-request)? (no form declares mdoe)"
    )
    assert error.error.data == {"reason": "unknown-keyword", "address": "guide://_review", "fields": [MODE_FIELD], "retry": f"guide://_review?{MODE_BLANK}"}


async def test_c8_state_failure_says_to_start_again_at_the_address(server, mode):
    if mode == "legacy":
        pytest.skip("continuation state exists only on 2026-07-28")
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as info:
            answers = {"target": ElicitResult(action="accept", content={"mode": "branch"})}
            await client.session.read_resource("guide://_review?extra=1", input_responses=answers, allow_input_required=True)
    assert info.value.error.message == "answers for forms that were not requested: target"
    assert info.value.error.data == {"reason": "state", "address": "guide://_review", "fields": [], "retry": "guide://_review?extra=1"}


async def test_c7_11_a_prompt_failure_carries_the_same_data(server, connect, mode):
    async with connect(server) as client:
        error = await prompt_error(client, "review", {"mode": "branch"})
    assert guide_data(error, mode)["retry"] == "guide://_review?mode=branch&reference=<string>"


async def test_c7_11_the_tool_error_result_carries_the_data_as_structured_content(server, connect, elicitor, mode):
    elicitor.answer(mode="decline")
    async with connect(server) as bare, connect(server, elicitor) as answering:
        missing = await bare.call_tool("read_resource", {"uri": "guide://_review"}, raise_on_error=False)
        declined = await answering.call_tool("read_resource", {"uri": "guide://_review"}, raise_on_error=False)
    assert missing.is_error and missing.content[0].text.startswith("this client cannot answer forms; supply the keywords: mode (")
    assert {key: value for key, value in missing.structured_content.items() if key != "questions"} == {
        "reason": "missing", "address": "guide://_review", "fields": [MODE_FIELD], "retry": f"guide://_review?{MODE_BLANK}"
    }
    assert [question["form"] for question in missing.structured_content["questions"]] == ["target", "reference"]
    assert declined.is_error and declined.structured_content["reason"] == "declined"
