"""C6, C7.6, C7.9, C7.10, C7.11: what a caller gets wrong is named, with what would work; nothing is thrown away.

Each test names its row of the fail-loudly table; every test runs in both protocol eras.
"""

import pytest
from e2e_support import INVALID_PARAMS, MISSING_CAPABILITY, read, read_error
from support.clocks import person

from guide.server.app import create_server

POSTMORTEM = """\
    ---
    description: Write a postmortem.
    elicitation:
      incident:
        message: Which incident?
        schema:
          type: object
          properties:
            ticket: {type: string, pattern: 'INC-[0-9]+'}
            severity: {type: string, enum: [sev1, sev2, sev3], default: sev2}
          required: [ticket]
      owner:
        message: Who owns the follow-up?
        schema:
          type: object
          properties:
            owner: {type: string}
          required: [owner]
      timeline:
        message: When did it start?
        when: {severity: [sev1]}
        schema:
          type: object
          properties:
            start: {type: string}
          required: [start]
    ---
    PM ticket={{kwargs.ticket}} severity={{kwargs.severity}} owner={{kwargs.owner}} start={{kwargs.start}}
    """

BRANCH = """\
    ---
    description: Start work on a branch that is not main.
    elicitation:
      branch:
        message: Which branch?
        schema:
          type: object
          properties:
            branch: {type: string, pattern: '(?!main$).+'}
          required: [branch]
    ---
    BRANCH {{kwargs.branch}}
    """

PHASED = """\
    ---
    description: Move to another phase.
    elicitation:
      next:
        message: Which phase next?
        schema:
          type: object
          properties:
            to: {type: string, source: workflow-phases}
          required: [to]
    ---
    MOVE {{kwargs.to}}
    """


@pytest.fixture
def postmortem(empty_docroot):
    empty_docroot.write("_commands/postmortem.md", POSTMORTEM)
    empty_docroot.write("_commands/branch.md", BRANCH)
    return create_server(empty_docroot.root, project=empty_docroot.project, watch=False, clock=person())  # a person answers each form


async def test_keyword_typo_severty_is_named_with_the_field_it_resembles(postmortem, connect, elicitor):
    async with connect(postmortem, elicitor) as client:
        error = await read_error(client, "guide://_postmortem?ticket=INC-1&severty=sev1")
    assert error.error.code == INVALID_PARAMS
    assert error.error.message == "unknown keyword severty; did you mean severity (string; one of: sev1, sev2, sev3; default sev2)? (no form declares severty)"
    assert elicitor.calls == []  # nothing is asked when a keyword is wrong


async def test_keyword_supplied_ticket_is_not_asked_while_its_form_is_pending(postmortem, connect, elicitor):
    elicitor.answer(severity={"severity": "sev3"}, owner={"owner": "ana"})
    async with connect(postmortem, elicitor) as client:
        text = await read(client, "guide://_postmortem?ticket=INC-4242")
    assert text.strip() == "PM ticket=INC-4242 severity=sev3 owner=ana start="
    incident = elicitor.asked("severity")[0].schema
    assert set(incident["properties"]) == {"severity"} and incident["required"] == []


async def test_client_without_forms_is_told_only_the_keywords_still_needed(postmortem, connect, mode):
    async with connect(postmortem) as client:
        error = await read_error(client, "guide://_postmortem")
    assert "supply the keywords: owner (string, required), ticket (string, required; matching INC-[0-9]+);" in error.error.message  # severity has a default: not needed
    assert error.error.code == (MISSING_CAPABILITY if mode == "2026-07-28" else INVALID_PARAMS)


async def test_only_the_active_workflow_phase_enabled_is_not_asked_as_an_empty_choice(empty_docroot, connect, elicitor):
    empty_docroot.write("guide.yaml", "workflow: {phases: [planning]}\n")
    empty_docroot.write("_commands/move.md", PHASED)
    empty_docroot.phase("planning")
    server = create_server(empty_docroot.root, project=empty_docroot.project, watch=False)
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_move")
        supplied = await read(client, "guide://_move?to=planning")
    assert elicitor.calls == []
    assert "there is no other workflow phase to choose for to: planning is the only enabled phase" in error.error.message
    assert "supply to=planning as a keyword or enable more phases in guide.yaml" in error.error.message
    assert supplied.strip() == "MOVE planning"


@pytest.mark.filterwarnings("ignore:Pattern .* is not supported by Pydantic:UserWarning")  # the test client, not Guide
async def test_pattern_with_a_lookahead_is_usable(postmortem, connect, elicitor):
    elicitor.answer(branch=[{"branch": "main"}, {"branch": "feature/x"}])
    async with connect(postmortem, elicitor) as client:
        refused = await read_error(client, "guide://_branch?branch=main")
        given = await read(client, "guide://_branch?branch=fix-1")
        asked = await read(client, "guide://_branch")
    assert "'main' does not match the pattern; it accepts a string matching (?!main$).+" in refused.error.message
    assert given.strip() == "BRANCH fix-1" and asked.strip() == "BRANCH feature/x"
    assert "does not match the pattern" in elicitor.asked("branch")[1].message


async def test_read_resource_tool_without_forms_is_a_tool_error_result(postmortem, connect):
    async with connect(postmortem) as client:
        result = await client.call_tool("read_resource", {"uri": "guide://_postmortem?owner=ana"}, raise_on_error=False)
    assert result.is_error and "supply the keywords: ticket" in result.content[0].text


async def test_declined_form_names_the_keywords_that_would_supply_it(postmortem, connect, elicitor):
    elicitor.answer(ticket="decline", owner={"owner": "ana"})
    async with connect(postmortem, elicitor) as client:
        error = await read_error(client, "guide://_postmortem")
    assert error.error.message == (
        "form incident was declined; to go on without the form, supply its fields as keywords: "
        "ticket (string, required; matching INC-[0-9]+), severity (string; one of: sev1, sev2, sev3; default sev2)"
    )


async def test_cancelled_form_with_nothing_to_fall_back_on_names_the_keywords(postmortem, connect, elicitor):
    elicitor.answer(ticket={"ticket": "INC-7"}, owner="cancel")
    async with connect(postmortem, elicitor) as client:
        error = await read_error(client, "guide://_postmortem")
    assert error.error.message == "form owner was cancelled; to go on without the form, supply its fields as keywords: owner (string, required)"
