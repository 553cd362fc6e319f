"""Interactive flows over an in-memory client: forms asked, answered, defaulted, declined and cancelled (C5-C7)."""

import pytest
from e2e_docroot import REVIEW_FORMS
from e2e_support import INVALID_PARAMS, missing_keywords_error, read, read_error

from guide.server.app import create_server

# --- the C5 two-form branch flow -------------------------------------------------------------


async def test_branch_flow_answered_interactively(server, connect, elicitor):
    elicitor.answer(mode={"mode": "branch"}, reference={"reference": "feature/x"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review")
    assert text.strip() == "REVIEW mode=branch reference=feature/x extra="
    assert elicitor.keys == ["mode", "reference"]
    assert [asked.message for asked in elicitor.calls] == ["Choose what to review.", "Enter the branch or pull request."]


async def test_branch_flow_without_reference_when_mode_does_not_match(server, connect, elicitor):
    elicitor.answer(mode={"mode": "uncommitted"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review")
    assert text.strip() == "REVIEW mode=uncommitted reference= extra="
    assert elicitor.keys == ["mode"]


async def test_branch_flow_fully_supplied_by_keywords_asks_nothing(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review?mode=pull-request&reference=feature%2Fx&extra=kept+as+is")
    assert text.strip() == "REVIEW mode=pull-request reference=feature/x extra=kept as is"
    assert elicitor.calls == []


async def test_keyword_supplies_the_first_form_and_only_the_second_is_asked(server, connect, elicitor):
    elicitor.answer(reference={"reference": "topic/y"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review?mode=branch")
    assert text.strip() == "REVIEW mode=branch reference=topic/y extra="
    assert elicitor.keys == ["reference"]


async def test_alias_resolves_to_the_command(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_cr?mode=uncommitted")
    assert text.strip() == "REVIEW mode=uncommitted reference= extra="


async def test_invalid_keyword_fails_naming_it_and_asks_nothing(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_review?mode=sideways")
        typed = await read_error(client, "guide://_typed?count=3.7")
    assert "mode" in error.error.message and "uncommitted" in error.error.message
    assert "count" in typed.error.message and "\n" not in typed.error.message
    assert error.error.code == typed.error.code == INVALID_PARAMS
    assert elicitor.calls == []


# --- typed fields -----------------------------------------------------------------------------


async def test_typed_answer_renders_normalised_values_and_defaults(server, connect, elicitor):
    elicitor.answer(count={"count": 3.0})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_typed")
    assert text.strip() == "TYPED count=3 ratio=0.5 verbose=false"
    assert elicitor.keys == ["count"]


async def test_typed_answer_with_every_field(server, connect, elicitor):
    elicitor.answer(count={"count": 10, "ratio": 1, "verbose": True})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_typed")
    assert text.strip() == "TYPED count=10 ratio=1.0 verbose=true"


async def test_typed_keywords_are_normalised(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_typed?count=7&ratio=0.25&verbose=TRUE")
        zero = await read(client, "guide://_typed?count=1&ratio=0&verbose=false")
    assert text.strip() == "TYPED count=7 ratio=0.25 verbose=true"
    assert zero.strip() == "TYPED count=1 ratio=0.0 verbose=false"
    assert elicitor.calls == []


# --- a client without form elicitation --------------------------------------------------------


async def test_no_capability_applies_defaults_and_marks_the_form_defaulted(server, connect):
    async with connect(server) as client:
        depth = await read(client, "guide://_depth")
        typed = await read(client, "guide://_typed")
        chosen = await read(client, "guide://_depth?depth=thorough")
    assert depth.strip() == "DEFAULTED(depth) DEPTH quick"
    assert typed.strip() == "TYPED count=2 ratio=0.5 verbose=false"
    assert chosen.strip() == "DEPTH thorough"


async def test_no_capability_renders_a_fallback_form(server, connect):
    async with connect(server) as client:
        text = await read(client, "guide://_standup")
    assert text.strip() == "FALLBACK(focus) STANDUP focus=[]"


async def test_no_capability_fails_naming_the_missing_keywords(server, connect, mode):
    async with connect(server) as client:
        review = await read_error(client, "guide://_review")
        branch = await read_error(client, "guide://_review?mode=branch")
        pair = await read_error(client, "guide://_pair")
        done = await read(client, "guide://_review?mode=branch&reference=main")
    missing_keywords_error(review, mode, "mode")
    missing_keywords_error(branch, mode, "reference")
    missing_keywords_error(pair, mode, "alpha, zeta")
    assert done.strip() == "REVIEW mode=branch reference=main extra="


async def test_no_capability_names_keywords_of_a_skill(server, connect, mode):
    async with connect(server) as client:
        error = await read_error(client, "guide://$triage?kind=bug")
        text = await read(client, "guide://$triage?kind=feature")
    missing_keywords_error(error, mode, "ticket")
    assert text.strip() == "TRIAGE skill=triage kind=feature ticket= urgent=false"


# --- decline and cancel -------------------------------------------------------------------------


async def test_decline_fails_naming_the_form(server, connect, elicitor):
    elicitor.answer(mode="decline", depth="decline")
    async with connect(server, elicitor) as client:
        review = await read_error(client, "guide://_review")
        # a decline never applies defaults, even where they would resolve the form
        depth = await read_error(client, "guide://_depth")
    assert review.error.message == "form target was declined; to go on without the form, supply its fields as keywords: mode (string, required; one of: uncommitted, branch, pull-request)"
    assert depth.error.message == "form depth was declined; to go on without the form, supply its fields as keywords: depth (string, required; one of: quick, thorough; default quick)"


async def test_decline_of_a_fallback_form_still_fails(server, connect, elicitor):
    elicitor.answer(focus="decline")
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_standup")
    assert error.error.message == "form focus was declined; to go on without the form, supply its fields as keywords: focus (string, required)"


async def test_cancel_without_defaults_fails_naming_the_form(server, connect, elicitor):
    elicitor.answer(mode="cancel")
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_review")
    assert error.error.message == "form target was cancelled; to go on without the form, supply its fields as keywords: mode (string, required; one of: uncommitted, branch, pull-request)"


async def test_cancel_applies_defaults_or_fallback(server, connect, elicitor):
    elicitor.answer(depth="cancel", focus="cancel", count="cancel")
    async with connect(server, elicitor) as client:
        depth = await read(client, "guide://_depth")
        standup = await read(client, "guide://_standup")
        typed = await read(client, "guide://_typed")
    assert depth.strip() == "DEFAULTED(depth) DEPTH quick"
    assert standup.strip() == "FALLBACK(focus) STANDUP focus=[]"
    assert typed.strip() == "TYPED count=2 ratio=0.5 verbose=false"


async def test_cancelled_supplier_leaves_waiting_forms_unasked(empty_docroot, connect, elicitor):
    forms = REVIEW_FORMS.replace("    message: Choose what to review.\n", "    message: Choose what to review.\n    fallback: render\n")
    empty_docroot.write("_commands/review.md", "---\n" + forms + "---\nR mode=[{{kwargs.mode}}] ref=[{{kwargs.reference}}]\n")
    elicitor.answer(mode="cancel")
    async with connect(create_server(empty_docroot.root, empty_docroot.project, watch=False), elicitor) as client:
        text = await read(client, "guide://_review")
    assert text.strip() == "R mode=[] ref=[]"
    assert elicitor.keys == ["mode"]


# --- invalid answers ---------------------------------------------------------------------------


async def test_invalid_answer_is_asked_again_with_the_reason(server, connect, elicitor):
    elicitor.answer(reference=[{"reference": "bad ref"}, {"reference": "good/ref"}])
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review?mode=branch")
    assert text.strip() == "REVIEW mode=branch reference=good/ref extra="
    first, second = elicitor.asked("reference")
    assert first.message == "Enter the branch or pull request."
    assert second.message.startswith("Enter the branch or pull request.")
    assert "pattern" in second.message and "[A-Za-z0-9._/-]+" in second.message
    assert second.schema == first.schema


async def test_invalid_email_is_asked_again(server, connect, elicitor):
    elicitor.answer(email=[{"email": "not an address"}, {"email": "ada@example.com"}])
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_contact")
    assert text.strip() == "CONTACT ada@example.com"
    first, second = elicitor.asked("email")
    assert second.message != first.message and "email" in second.message[len(first.message):]


async def test_fourth_invalid_answer_fails(server, connect, elicitor):
    elicitor.answer(reference=[{"reference": "bad ref"}])
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_review?mode=branch")
    assert len(elicitor.asked("reference")) == 4
    assert error.error.message.startswith("form reference:")
    assert "asked 4 times" in error.error.message and "\n" not in error.error.message


# --- help never asks ---------------------------------------------------------------------------


@pytest.mark.parametrize("with_handler", [True, False], ids=["handler", "no-handler"])
async def test_help_never_elicits(server, connect, elicitor, with_handler):
    async with connect(server, elicitor if with_handler else None) as client:
        overview = await read(client, "guide://_help")
        described = await read(client, "guide://_help/review")
        query = await read(client, "guide://_review?help")
        prompt = (await client.get_prompt("guide", {"command": ":review --help"})).messages[0].content.text
        skill = await read(client, "guide://$triage?help")
        nested = await read(client, "guide://_help/workflow/phase")
    assert elicitor.calls == []
    assert "guide://_review" in overview and "guide://$triage" in overview and "guide://_hidden" not in overview
    assert described == query == prompt
    for text in ("target", "reference", "mode", "uncommitted", "pull-request", "[A-Za-z0-9._/-]+", "mode="):
        assert text in described, text
    assert "kind" in skill and "ticket" in skill
    assert "phase" in nested and "positional" in nested.lower()


async def test_help_shows_defaults_and_types(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        typed = await read(client, "guide://_help/typed")
    for text in ("count", "integer", "number", "boolean", "default 2", "default 0.5", "default false"):
        assert text in typed, text
    assert elicitor.calls == []
