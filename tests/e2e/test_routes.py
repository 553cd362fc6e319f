"""Every route reaches the same resolver: the `guide` prompt, per-command prompts, the tool fallback and completions (C3)."""

import pytest
from e2e_support import FORM_CAPABILITY, INVALID_PARAMS, MISSING_CAPABILITY, prompt_error, prompt_text, read
from mcp_types import PromptReference, ResourceTemplateReference

from guide.server.app import create_server

# --- the `guide` prompt: `_`, `:` and `;` routes -------------------------------------------------


@pytest.mark.parametrize(
    "route",
    [
        "_review --mode=branch --reference=feature/x",
        ":review --mode branch --reference feature/x",
        ";review --mode=branch --reference=feature/x",
        ":cr --mode=branch --reference feature/x",
    ],
)
async def test_guide_prompt_routes_supply_keywords(server, connect, elicitor, route):
    async with connect(server, elicitor) as client:
        text = await prompt_text(client, "guide", {"command": route})
        resource = await read(client, "guide://_review?mode=branch&reference=feature%2Fx")
    assert text == resource
    assert text.strip() == "REVIEW mode=branch reference=feature/x extra="
    assert elicitor.calls == []


async def test_guide_prompt_route_elicits_what_is_missing(server, connect, elicitor):
    elicitor.answer(reference={"reference": "feature/y"})
    async with connect(server, elicitor) as client:
        text = await prompt_text(client, "guide", {"command": ";review --mode=pull-request"})
    assert text.strip() == "REVIEW mode=pull-request reference=feature/y extra="
    assert elicitor.keys == ["reference"]


async def test_bare_flags_are_true_and_no_flags_false(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        bare = await prompt_text(client, "guide", {"command": ":deploy --env=prod --dry_run --no-force"})
        spelled = await prompt_text(client, "guide", {"command": "_deploy --env=dev --dry_run=false --force=true --replicas=3"})
    assert bare.strip() == "DEPLOY env=prod label=unlabelled dry_run=true force=false replicas=1 args=[]"
    assert spelled.strip() == "DEPLOY env=dev label=unlabelled dry_run=false force=true replicas=3 args=[]"
    assert elicitor.calls == []


async def test_argrequired_flag_takes_the_next_token_and_positional_args_fill_fields(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        text = await prompt_text(client, "guide", {"command": ":deploy prod --label 'night build'"})
        uri = await read(client, "guide://_deploy/prod?label=night%20build")
    assert text.strip() == "DEPLOY env=prod label=night build dry_run=false force=true replicas=1 args=[prod]"
    assert uri == text
    assert elicitor.calls == []


POSTMORTEM = """\
---
description: Write a postmortem.
elicitation:
  incident:
    message: Which incident?
    schema:
      type: object
      properties:
        ticket: {type: string, pattern: "INC-[0-9]+"}
        severity: {type: string, enum: [sev1, sev2, sev3]}
        customer_facing: {type: boolean, default: false}
      required: [ticket, severity]
---
PM ticket={{kwargs.ticket}} severity={{kwargs.severity}} customer_facing={{kwargs.customer_facing}} args=[{{args}}]
"""


async def test_a_flag_of_a_field_that_takes_a_value_takes_the_next_token_without_argrequired(docroot, connect, elicitor):
    docroot.write("_commands/pm.md", POSTMORTEM)
    async with connect(create_server(docroot.root, docroot.project, watch=False), elicitor) as client:
        spaced = await prompt_text(client, "guide", {"command": ":pm --severity sev2 --ticket INC-2222 --customer_facing notes"})
        dangling = await prompt_error(client, "guide", {"command": ":pm --ticket INC-1 --severity"})
    assert spaced.strip() == "PM ticket=INC-2222 severity=sev2 customer_facing=true args=[notes]"
    assert dangling.error.message == "flag --severity needs a value: write --severity=VALUE or --severity VALUE"
    assert elicitor.calls == []


async def test_positional_phase_arg_on_the_prompt_route(server, connect, docroot, elicitor):
    docroot.phase("planning")
    async with connect(server, elicitor) as client:
        text = await prompt_text(client, "guide", {"command": ":workflow/phase check"})
    assert text.strip() == "PHASE from=planning to=check"
    assert elicitor.calls == []


async def test_guide_prompt_errors(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        unknown = await prompt_error(client, "guide", {"command": ":nope"})
        skill = await prompt_error(client, "guide", {"command": ":triage --kind=bug"})
        hidden = await prompt_error(client, "guide", {"command": ":hidden"})
        garbage = await prompt_error(client, "guide", {"command": "review"})
        invalid = await prompt_error(client, "guide", {"command": ":review --mode=sideways"})
        dangling = await prompt_error(client, "guide", {"command": ":review --mode"})
    assert "nope" in unknown.error.message
    assert "triage" in skill.error.message  # skills are not reachable by prompt routes
    assert "hidden" in hidden.error.message
    assert "_name" in garbage.error.message
    assert "mode" in invalid.error.message
    assert "--mode" in dangling.error.message and "value" in dangling.error.message
    assert elicitor.calls == []


# --- per-command prompts ----------------------------------------------------------------------


async def test_per_command_prompts_are_listed_with_their_fields(server, connect):
    async with connect(server) as client:
        prompts = {prompt.name: prompt for prompt in await client.list_prompts()}
    assert [(a.name, a.required) for a in prompts["guide"].arguments] == [("command", True)]
    assert [(a.name, a.required) for a in prompts["review"].arguments] == [("mode", False), ("reference", False)]
    assert [a.name for a in prompts["workflow.phase"].arguments] == ["phase"]
    assert [a.name for a in prompts["withpartial"].arguments] == ["topic", "note"]
    assert [a.name for a in prompts["deploy"].arguments] == ["env", "label", "dry_run", "force", "replicas"]
    assert all(not a.required for name, p in prompts.items() if name != "guide" for a in p.arguments or [])
    assert "hidden" not in prompts and "workflow/phase" not in prompts
    assert not any(name.startswith(("triage", "$")) for name in prompts)


async def test_per_command_prompt_works_with_and_without_arguments(server, connect, docroot, elicitor):
    docroot.phase("review")
    elicitor.answer(mode={"mode": "branch"}, reference={"reference": "r1"})
    async with connect(server, elicitor) as client:
        supplied = await prompt_text(client, "review", {"mode": "uncommitted"})
        assert elicitor.calls == []
        asked = await prompt_text(client, "review", {})
        phase = await prompt_text(client, "workflow.phase", {"phase": "review"})
        typed = await prompt_text(client, "deploy", {"env": "dev", "dry_run": "true", "replicas": "4"})
    assert supplied.strip() == "REVIEW mode=uncommitted reference= extra="
    assert asked.strip() == "REVIEW mode=branch reference=r1 extra="
    assert phase.strip() == "PHASE from=review to=review"
    assert typed.strip() == "DEPLOY env=dev label=unlabelled dry_run=true force=true replicas=4 args=[]"
    assert elicitor.keys == ["mode", "reference"]


async def test_per_command_prompt_treats_empty_arguments_as_unresolved(server, connect, elicitor):
    elicitor.answer(mode={"mode": "uncommitted"})
    async with connect(server, elicitor) as client:
        supplied = await prompt_text(client, "review", {"mode": "uncommitted", "reference": ""})
        assert elicitor.calls == []
        asked = await prompt_text(client, "review", {"mode": "", "reference": " "})
    assert supplied.strip() == asked.strip() == "REVIEW mode=uncommitted reference= extra="
    assert elicitor.keys == ["mode"]


async def test_per_command_prompt_failures_are_errors(server, connect, mode):
    async with connect(server) as client:
        missing = await prompt_error(client, "review", {})
        invalid = await prompt_error(client, "deploy", {"env": "dev", "replicas": "1.5"})
    assert "supply the prompt arguments: mode" in missing.error.message  # a prompt caller is told prompt arguments (C7.12 c)
    if mode == "2026-07-28":
        assert missing.error.code == MISSING_CAPABILITY and missing.error.data["requiredCapabilities"] == FORM_CAPABILITY["requiredCapabilities"]
    assert invalid.error.code == INVALID_PARAMS and "replicas" in invalid.error.message


# --- the read_resource tool -------------------------------------------------------------------


async def test_the_tool_is_listed_with_what_it_does_and_its_one_argument(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        [tool] = await client.list_tools()
    assert tool.name == "read_resource"
    assert tool.description.startswith("Read a guide:// address, for clients that only call tools")
    assert tool.input_schema["required"] == ["uri"]


@pytest.mark.parametrize(
    "uri",
    ["guide://_review?mode=branch&reference=feature%2Fx", "guide://_help", "guide://_help/review", "guide://docs/style", "guide://$triage/notes.md"],
)
async def test_tool_gives_the_same_result_as_a_resource_read(server, connect, elicitor, uri):
    async with connect(server, elicitor) as client:
        tool = await client.call_tool("read_resource", {"uri": uri})
        resource = await read(client, uri)
    assert not tool.is_error
    assert tool.content[0].text == resource
    assert elicitor.calls == []


async def test_tool_elicits_the_same_forms(server, connect, elicitor):
    elicitor.answer(kind={"kind": "bug", "urgent": True}, ticket=[{"ticket": "see GD-7"}, {"ticket": "GD-7"}])
    async with connect(server, elicitor) as client:
        tool = await client.call_tool("read_resource", {"uri": "guide://$triage"})
        tool_calls = list(elicitor.calls)
        elicitor.calls.clear()
        elicitor.answer(ticket=[{"ticket": "see GD-7"}, {"ticket": "GD-7"}])
        resource = await read(client, "guide://$triage")
    assert tool.content[0].text == resource
    assert resource.strip() == "TRIAGE skill=triage kind=bug ticket=GD-7 urgent=true"
    assert [(a.key, a.message, a.schema) for a in tool_calls] == [(a.key, a.message, a.schema) for a in elicitor.calls]
    assert [a.key for a in tool_calls] == ["kind", "ticket", "ticket"]


async def test_tool_errors_are_error_results_with_the_message(server, connect, elicitor):
    elicitor.answer(mode="decline")
    async with connect(server, elicitor) as client:
        declined = await client.call_tool("read_resource", {"uri": "guide://_review"}, raise_on_error=False)
        unknown = await client.call_tool("read_resource", {"uri": "guide://_nope"}, raise_on_error=False)
        invalid = await client.call_tool("read_resource", {"uri": "guide://_typed?count=x"}, raise_on_error=False)
        foreign = await client.call_tool("read_resource", {"uri": "https://example.com/"}, raise_on_error=False)
    assert declined.is_error and declined.content[0].text == "form target was declined; to go on without the form, supply its fields as keywords: mode (string, required; one of: uncommitted, branch, pull-request)"
    assert unknown.is_error and "nope" in unknown.content[0].text
    assert invalid.is_error and "count" in invalid.content[0].text
    assert foreign.is_error and "guide://" in foreign.content[0].text


async def test_tool_without_form_capability_names_the_keywords(server, connect):
    """C7.11: in both eras the tool reports missing input as an error result (a resource read uses -32021 on 2026-07-28)."""
    async with connect(server) as client:
        result = await client.call_tool("read_resource", {"uri": "guide://_review?mode=branch"}, raise_on_error=False)
        defaulted = await client.call_tool("read_resource", {"uri": "guide://_depth"})
    assert result.is_error and "supply the keywords: reference" in result.content[0].text
    assert defaulted.content[0].text.strip() == "DEFAULTED(depth) DEPTH quick"


# --- completion -------------------------------------------------------------------------------


async def _complete(client, ref, name, value, context=None) -> list[str]:
    return list((await client.complete(ref, {"name": name, "value": value}, context_arguments=context)).values)


async def test_completion_of_prompt_arguments(server, connect, docroot):
    docroot.phase("check")
    async with connect(server) as client:
        mode = await _complete(client, PromptReference(name="review"), "mode", "")
        b = await _complete(client, PromptReference(name="review"), "mode", "b")
        phase = await _complete(client, PromptReference(name="workflow.phase"), "phase", "")
        boolean = await _complete(client, PromptReference(name="deploy"), "dry_run", "t")
        free = await _complete(client, PromptReference(name="review"), "reference", "fe")
        routes = await _complete(client, PromptReference(name="guide"), "command", ":re")
        under = await _complete(client, PromptReference(name="guide"), "command", "_wo")
    assert mode == ["uncommitted", "branch", "pull-request"]
    assert b == ["branch"]
    assert phase == ["discussion", "planning", "implementation", "review"]  # the active phase is not offered
    assert boolean == ["true"]
    assert free == []
    assert routes == [":review"]
    assert under == ["_workflow/phase"]


async def test_completion_of_template_keywords(server, connect):
    async with connect(server) as client:
        templates = {t.name: t.uri_template for t in await client.list_resource_templates()}
        review = await _complete(client, ResourceTemplateReference(uri=templates["review"]), "mode", "pu")
        skill = await _complete(client, ResourceTemplateReference(uri=templates["triage"]), "kind", "")
        urgent = await _complete(client, ResourceTemplateReference(uri=templates["triage"]), "urgent", "")
    assert templates["review"] == "guide://_review{?mode,reference}"
    assert templates["triage"] == "guide://$triage{?kind,urgent,ticket}"
    assert review == ["pull-request"]
    assert skill == ["bug", "feature"]
    assert urgent == ["true", "false"]


async def test_completion_of_routes_leaves_out_commands_that_do_not_apply(server, connect):
    async with connect(server) as client:
        hidden = await _complete(client, PromptReference(name="guide"), "command", ":hid")
    assert hidden == []
