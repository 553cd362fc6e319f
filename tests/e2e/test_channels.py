"""C7.12: the channel a pending form takes follows what the client declared, in both eras.

Native forms when the client declares form elicitation; Guide's MCP App form when
it declares only the MCP Apps extension; the agent's failure (C7.6) when it declares
neither, or when the setting turns the App channel off. The App's submissions are
checked as any answer is: nothing the page sends is trusted.
"""

import copy

import pytest
from e2e_support import Elicitor, read, read_error
from fastmcp import Client
from mcp.client import advertise

from guide.forms.combine import combine
from guide.forms.declare import declare_forms, declared_names
from guide.forms.step import Request, step
from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, PAGE_URI, SUBMIT_TOOL
from guide.server.eras.modern import Modern

APP_MIME = "text/html;profile=mcp-app"
APPS = {"mimeTypes": [APP_MIME]}
"""What a client that renders MCP Apps declares under `capabilities.extensions["io.modelcontextprotocol/ui"]`."""
APP_ELICITATION = {"mimeTypes": [APP_MIME], "elicitation": {}}
"""The same, with the draft app-rendered elicitation."""


def apps(settings=APPS):
    return advertise("io.modelcontextprotocol/ui", copy.deepcopy(settings))


@pytest.fixture
def client(mode):
    """`client(server, elicitor=None, extension=None)`: a Client in this test's era declaring what it is given."""

    def make(server, elicitor: Elicitor | None = None, extension=None) -> Client:
        options = {"extensions": [extension]} if extension is not None else {}
        if elicitor is not None:
            options["elicitation_handler"] = elicitor.handle
        return Client(server, mode=mode, **options)

    return make


async def open_form(client: Client, uri: str) -> dict:
    result = await client.call_tool(OPEN_TOOL, {"uri": uri})
    assert not result.is_error, result.content
    return result.structured_content


async def submit(client: Client, shown: dict, answers: dict, *, uri: str | None = None, raise_on_error=True):
    arguments = {"uri": uri or shown["uri"], "state": shown["state"], "answers": answers}
    return await client.call_tool(SUBMIT_TOOL, arguments, raise_on_error=raise_on_error)


def accept(**content) -> dict:
    return {"action": "accept", "content": content}


async def test_c7_12_a_client_declaring_forms_gets_native_forms(server, client):
    elicitor = Elicitor().answer(mode={"mode": "branch"}, reference={"reference": "feat/x"})
    async with client(server, elicitor) as connected:
        assert await read(connected, "guide://_review") == "REVIEW mode=branch reference=feat/x extra=\n"
    assert elicitor.keys == ["mode", "reference"]


async def test_c7_12_forms_win_over_apps_when_a_client_declares_both(server, client):
    elicitor = Elicitor().answer(mode={"mode": "uncommitted"})
    async with client(server, elicitor, apps()) as connected:
        assert await read(connected, "guide://_review") == "REVIEW mode=uncommitted reference= extra=\n"
    assert elicitor.keys == ["mode"]


async def test_c7_12_a_client_declaring_only_apps_is_told_to_open_the_app_form(server, client):
    async with client(server, extension=apps()) as connected:
        text = await read(connected, "guide://_review?extra=1")
        assert f"Call Guide's `{OPEN_TOOL}` tool" in text and "with the argument uri set to `guide://_review?extra=1`" in text
        assert "Choose what to review." in text and "Do not guess" in text
        listed = {tool.name: tool for tool in await connected.list_tools()}
        assert listed[OPEN_TOOL].meta["ui"] == {"resourceUri": PAGE_URI, "visibility": ["model"]}
        assert listed[SUBMIT_TOOL].meta["ui"] == {"resourceUri": PAGE_URI, "visibility": ["app"]}
        # The whole branch flow through the App's tool calls: a select, then the field its `when` opens.
        shown = await open_form(connected, "guide://_review?extra=1")
        assert [form["id"] for form in shown["forms"]] == ["target"]
        assert shown["forms"][0]["schema"]["properties"]["mode"]["enum"] == ["uncommitted", "branch", "pull-request"]
        shown = (await submit(connected, shown, {"target": accept(mode="pull-request")})).structured_content
        assert [form["id"] for form in shown["forms"]] == ["reference"]
        done = await submit(connected, shown, {"reference": accept(reference="42")})
        assert done.structured_content == {"guide": "rendered", "uri": "guide://_review?extra=1", "text": "REVIEW mode=pull-request reference=42 extra=1\n"}
        assert done.content[0].text == "REVIEW mode=pull-request reference=42 extra=1\n"


async def test_c7_12_the_app_page_is_a_self_contained_mcp_app_resource(server, client):
    async with client(server, extension=apps()) as connected:
        listed = {str(resource.uri): resource for resource in await connected.list_resources()}
        assert listed[PAGE_URI].mime_type == APP_MIME
        assert listed[PAGE_URI].meta["ui"]["csp"] == {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
        page = (await connected.read_resource(PAGE_URI))[0].text
    assert page.lstrip().lower().startswith("<!doctype html>")
    for fetched in ("src=", "href=", "@import", "fetch(", "XMLHttpRequest", "WebSocket"):
        assert fetched not in page, f"the page must load nothing ({fetched})"


async def test_c7_12_a_client_declaring_neither_gets_the_agent_failure(server, client):
    async with client(server) as connected:
        error = await read_error(connected, "guide://_review")
        # A client that cannot show Apps is not offered the App's page or tools.
        assert {tool.name for tool in await connected.list_tools()} == {"read_resource"}
        assert PAGE_URI not in {str(resource.uri) for resource in await connected.list_resources()}
    assert error.error.data["reason"] == "missing"
    assert "mode" in error.error.message


@pytest.mark.parametrize("given", [{"app_forms": 0}, {"app_forms": "false"}])
async def test_c7_12_the_setting_turns_the_app_channel_off(docroot, client, given):
    server = create_server(docroot.root, project=docroot.project, watch=False, **given)
    async with client(server, extension=apps()) as connected:
        error = await read_error(connected, "guide://_review")
        assert error.error.data["reason"] == "missing"
        assert {tool.name for tool in await connected.list_tools()}.isdisjoint({OPEN_TOOL, SUBMIT_TOOL})
        assert PAGE_URI not in {str(resource.uri) for resource in await connected.list_resources()}


async def test_c7_12_the_app_form_offers_defaults_instead_of_applying_them(server, client):
    # Without a channel that asks, `typed` renders from its defaults; the App shows them pre-filled instead.
    async with client(server, extension=apps()) as connected:
        assert "open_form" in await read(connected, "guide://_typed")
        shown = await open_form(connected, "guide://_typed")
        assert shown["forms"][0]["schema"]["properties"]["count"]["default"] == 2
        done = await submit(connected, shown, {"numbers": accept(count=7)})
    assert done.structured_content["text"] == "TYPED count=7 ratio=0.5 verbose=false\n"


async def test_c7_12_the_app_form_declined_or_cancelled_ends_as_c7_10_says(server, client):
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_review")
        declined = await submit(connected, shown, {"target": {"action": "decline"}}, raise_on_error=False)
        assert declined.is_error and "form target was declined" in declined.content[0].text
        assert declined.structured_content["reason"] == "declined"
        shown = await open_form(connected, "guide://_typed")
        cancelled = await submit(connected, shown, {"numbers": {"action": "cancel"}})
    assert cancelled.structured_content["text"] == "TYPED count=2 ratio=0.5 verbose=false\n"


# No answer from the App is trusted: each is refused as the same answer from a native form is.


@pytest.fixture
def unchecked_client_answers(monkeypatch):
    """Let the native client send answers its own jsonschema check would refuse, so Guide's checks are what decides."""
    monkeypatch.setattr("fastmcp.client.elicitation._validate_form_content", lambda content, schema: None)


async def native_reask(server, mode, first: dict) -> str:
    """The message a native form is asked again with after `first` (then a valid answer ends it)."""
    elicitor = Elicitor().answer(mode=[first, {"mode": "uncommitted"}])
    async with Client(server, mode=mode, elicitation_handler=elicitor.handle) as connected:
        assert await read(connected, "guide://_review") == "REVIEW mode=uncommitted reference= extra=\n"
    return elicitor.asked("mode")[1].message


@pytest.mark.parametrize("bad", [{"mode": "everything"}, {"mode": "branch", "reference": "main"}, {"mode": 3}],
                         ids=["outside-the-choices", "a-field-not-in-the-form", "wrong-type"])
async def test_c7_12_an_invalid_app_answer_is_asked_again_with_the_reason_a_native_form_gets(server, client, mode, bad, unchecked_client_answers):
    native = await native_reask(server, mode, bad)
    assert "The previous answer was not accepted" in native
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_review")
        again = (await submit(connected, shown, {"target": {"action": "accept", "content": bad}})).structured_content
        assert [form["id"] for form in again["forms"]] == ["target"]
        assert again["forms"][0]["message"] == native
        done = await submit(connected, again, {"target": accept(mode="uncommitted")})
    assert done.structured_content["text"] == "REVIEW mode=uncommitted reference= extra=\n"


REGION = """---
elicitation:
  region:
    message: Where should it run?
    schema:
      type: object
      properties:
        region: {type: string, title: Region, oneOf: [{const: eu, title: Europe}, {const: us, title: United States}]}
      required: [region]
---
REGION {{kwargs.region}}
"""


async def test_c7_12_an_app_answer_outside_the_choices_is_refused_in_the_titles_the_person_saw(empty_docroot, client, mode):
    empty_docroot.write("_commands/region.md", REGION)
    server = create_server(empty_docroot.root, project=empty_docroot.project, watch=False)
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_region")
        again = (await submit(connected, shown, {"region": accept(region="asia")})).structured_content
        done = await submit(connected, again, {"region": accept(region="eu")})
    reason = again["forms"][0]["message"].partition("The previous answer was not accepted: ")[2]
    assert reason == "field region: asia is not one of the choices; it accepts one of: eu (Europe), us (United States)."
    assert done.structured_content["text"] == "REGION eu\n"


async def test_c7_12_the_app_form_words_each_fields_bounds_as_every_channel_does(server, client):
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_schema")
        failed = await read_error(connected, "guide://_schema?name=A")
    hints = shown["forms"][0]["hints"]
    assert hints["name"] == "Accepts a string of 1 to 20 characters matching [a-z]+."
    assert hints["count"] == "Accepts an integer from 1 to 9."
    assert "color" not in hints  # choices without bounds: the page shows them, titled
    assert "it accepts a string of 1 to 20 characters matching [a-z]+" in failed.error.message  # the same words


async def test_c7_12_an_app_submission_with_another_entrypoints_state_is_refused(server, client):
    async with client(server, extension=apps()) as connected:
        typed = await open_form(connected, "guide://_typed")
        refused = await submit(connected, typed, {"target": accept(mode="branch")}, uri="guide://_review", raise_on_error=False)
        assert refused.is_error
        assert "the continuation state belongs to guide://_typed, not guide://_review" in refused.content[0].text
        # The same state with other keywords is another read's too.
        review = await open_form(connected, "guide://_review")
        refused = await submit(connected, review, {"target": accept(mode="branch")}, uri="guide://_review?extra=1", raise_on_error=False)
        assert refused.is_error and "made for other keywords" in refused.content[0].text


@pytest.mark.parametrize("tamper", ["flip", "empty", "plain"])
async def test_c7_12_a_tampered_or_forged_app_state_is_refused(server, client, tamper):
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_review")
        token = shown["state"]
        forged = {
            "flip": token[:-6] + ("A" if token[-6] != "A" else "B") + token[-5:],
            "empty": "",
            "plain": '{"v":1,"e":"guide://_review","d":"","k":{},"a":[],"x":{"mode":"branch"},"c":["target"],"f":[],"r":["reference"],"n":{}}',
        }[tamper]
        refused = await submit(connected, {**shown, "state": forged}, {"reference": accept(reference="x")}, raise_on_error=False)
    assert refused.is_error
    assert "start again" in refused.content[0].text
    assert "REVIEW" not in refused.content[0].text


async def test_c7_12_an_app_answer_for_a_form_that_was_not_asked_is_refused(server, client):
    async with client(server, extension=apps()) as connected:
        shown = await open_form(connected, "guide://_review")
        refused = await submit(connected, shown, {"reference": accept(reference="x")}, raise_on_error=False)
    assert refused.is_error and "answers for forms that were not requested: reference" in refused.content[0].text


async def first_form_request(server, mode, settings) -> tuple[dict, dict, dict]:
    """The `_meta` and schema of the first form request a client declaring forms (and `settings` for Apps) receives, as sent, and the
    `_meta` of the `input_required` result that carried it (2026-07-28; empty on legacy)."""
    extensions = [apps(settings)] if settings is not None else None
    if mode == "2026-07-28":
        async with Client(server, mode=mode, elicitation_handler=lambda *a: None, extensions=extensions) as connected:
            result = await connected.session.read_resource("guide://_review", allow_input_required=True)
        params = result.input_requests["target"].params
        return dict(params.meta or {}), params.requested_schema, dict(result.meta or {})
    seen = []

    async def handler(message, response_type, params, context):
        seen.append((dict(params.meta or {}), copy.deepcopy(params.requested_schema)))
        return {"mode": "uncommitted"}

    async with Client(server, mode=mode, elicitation_handler=handler, extensions=extensions) as connected:
        assert await read(connected, "guide://_review") == "REVIEW mode=uncommitted reference= extra=\n"
    return (*seen[0], {})


@pytest.mark.parametrize(("settings", "hinted"), [(APP_ELICITATION, True), (APPS, False), (None, False)], ids=["app-elicitation", "apps", "no-apps"])
async def test_c7_12_app_rendered_elicitation_names_the_app_page_on_native_form_requests(server, mode, settings, hinted):
    # The draft app-rendered elicitation (SEP-3118): only a client that declares it gets the hint; the form itself is unchanged.
    meta, schema, carried = await first_form_request(server, mode, settings)
    assert schema == {"type": "object", "properties": {"mode": {"type": "string", "enum": ["uncommitted", "branch", "pull-request"]}}, "required": ["mode"]}
    if mode == "2026-07-28":
        # The 2026-07-28 schema of a request inside `input_required` has no `_meta`: the SDK drops it on the way out (guide/form as
        # well), so the page is named in the result's own `_meta` (docs/clients.md). This first assert fails once the SDK keeps it.
        assert meta == {}
        assert carried.get("ui") == ({"resourceUri": PAGE_URI} if hinted else None)
        return
    assert meta.get("guide/form") == "target"
    assert meta.get("ui") == ({"resourceUri": PAGE_URI} if hinted else None)


async def test_c7_12_no_hint_when_the_app_channel_is_off(docroot, mode):
    server = create_server(docroot.root, project=docroot.project, watch=False, app_forms=0)
    meta, _, carried = await first_form_request(server, mode, APP_ELICITATION)
    assert "ui" not in meta and "ui" not in carried


async def test_c7_12_the_2026_era_builds_its_form_requests_with_the_hint():
    # What Guide hands the SDK for an `input_required` round, before the SDK's wire schema drops `_meta` (see above).
    elicitation = {"target": {"message": "Choose.", "schema": {"type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"]}}}
    forms, issues = declare_forms(elicitation, origin="_commands/review.md")
    request = Request("guide://_review", combine(forms, declared_names(elicitation))[0])
    asked = step(request)

    async def on_the_loop(later):
        return later()

    pending = await Modern().drive(None, request, asked, answer_timeout=None, stepping=on_the_loop, ui=PAGE_URI)
    params = pending.reply.input_requests["target"].params
    assert params.meta == {"guide/form": "target", "ui": {"resourceUri": PAGE_URI}}
    assert params.requested_schema["properties"] == {"mode": {"type": "string"}}
    plain = await Modern().drive(None, request, asked, answer_timeout=None, stepping=on_the_loop)
    assert plain.reply.input_requests["target"].params.meta == {"guide/form": "target"}


async def test_c7_12_state_sealed_for_one_use_is_refused_by_the_other(server, mode):
    # A 2026-07-28 requestState is not an App state, and an App state is not a requestState (each is sealed for its own use).
    if mode != "2026-07-28":
        pytest.skip("requestState is the 2026-07-28 era's")
    async with Client(server, mode=mode, elicitation_handler=lambda *a: None, extensions=[apps()]) as connected:
        round_state = (await connected.session.read_resource("guide://_review", allow_input_required=True)).request_state
        refused = await submit(connected, {"uri": "guide://_review", "state": round_state}, {"target": accept(mode="branch")}, raise_on_error=False)
        assert refused.is_error and "start again" in refused.content[0].text
        app_state = (await open_form(connected, "guide://_review"))["state"]
        with pytest.raises(Exception) as info:
            await connected.session.read_resource("guide://_review", request_state=app_state, input_responses={}, allow_input_required=True)
    assert "Invalid or expired requestState" in str(info.value)


async def test_c7_12_a_prompt_caller_with_only_apps_is_told_the_address_to_open(server, client):
    async with client(server, extension=apps()) as connected:
        said = (await connected.get_prompt("guide", {"command": ":review --extra=1"})).messages[0].content.text
        assert f"Call Guide's `{OPEN_TOOL}` tool" in said and "with the argument uri set to `guide://_review?extra=1`" in said
        shown = await open_form(connected, "guide://_review?extra=1")
    assert [form["id"] for form in shown["forms"]] == ["target"]


@pytest.mark.parametrize("settings", [{"mimeTypes": ["text/plain"]}, {"mimeTypes": "text/html;profile=mcp-app"}], ids=["other-page-types", "not-a-list"])
async def test_c7_12_an_apps_declaration_without_guides_page_type_gets_the_agent_failure(server, client, settings):
    async with client(server, extension=apps(settings)) as connected:
        error = await read_error(connected, "guide://_review")
        assert {tool.name for tool in await connected.list_tools()} == {"read_resource"}
    assert error.error.data["reason"] == "missing"


async def test_c7_12_an_apps_declaration_without_a_type_list_takes_the_app_form(server, client):
    async with client(server, extension=apps({})) as connected:
        assert f"`{OPEN_TOOL}`" in await read(connected, "guide://_review")
