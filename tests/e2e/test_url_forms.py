"""C5 (turn 4) URL-mode forms end to end, in both eras, with clients nobody here wrote.

The MCP Python SDK's `mcp.ClientSession` (its elicitation callback gets the
URL-mode request; on 2026-07-28 the test runs the `input_required` rounds as a
client author would) and FastMCP's `Client` (its handler gets the request's
params). A client without URL mode gets the link in the failure; the sealed
state of 2026-07-28 carries which URL steps are done.
"""

import os
import sys
from contextlib import asynccontextmanager
from typing import Any

import pytest
from e2e_support import INVALID_PARAMS, MISSING_CAPABILITY
from fastmcp import Client
from fastmcp.client.transports import FastMCPTransport
from fastmcp.client.transports.base import TransportOptions
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client import advertise
from mcp.client.stdio import stdio_client
from mcp_types import ElicitationCapability, ElicitRequest, ElicitRequestURLParams, ElicitResult, FormElicitationCapability, InputRequiredResult
from support.clocks import person

from guide.server.app import create_server

SIGN_IN = "https://accounts.example.com/signin"
DEPLOY = """\
---
description: Deploy, signed in for production.
elicitation:
  target:
    message: Where to deploy?
    schema:
      type: object
      properties:
        env: {type: string, enum: [staging, production]}
        note: {type: string}
      required: [env]
  signin:
    mode: url
    message: Sign in to the deploy service.
    url: "https://accounts.example.com/signin?env={{kwargs.env}}&note={{kwargs.note}}"
    when: {env: production}
---
Deploy to {{kwargs.env}}.{{#elicitation.opened.signin}} Signed in.{{/elicitation.opened.signin}}\
{{#elicitation.defaulted_forms.signin}} Not signed in.{{/elicitation.defaulted_forms.signin}}
"""
KEY = """\
---
description: Set up the API key, then two questions.
elicitation:
  apikey:
    mode: url
    message: Store your deploy API key on the key page; Guide never sees it.
    url: "https://accounts.example.com/keys/new"
    fallback: render
  kind:
    message: What kind?
    schema: {type: object, properties: {kind: {type: string, enum: [bug, feature]}}, required: [kind]}
  issue:
    message: Which issue?
    when: {kind: bug}
    schema: {type: object, properties: {issue: {type: integer}}, required: [issue]}
---
kind={{kwargs.kind}} issue={{kwargs.issue}}{{#elicitation.opened.apikey}} key-page-opened{{/elicitation.opened.apikey}}\
{{^elicitation.opened.apikey}} open https://accounts.example.com/keys/new first{{/elicitation.opened.apikey}}
"""
HOSTED = """\
---
elicitation:
  where:
    message: Which host?
    schema: {type: object, properties: {host: {type: string}}, required: [host]}
  open:
    mode: url
    message: Open the page.
    url: "https://{{{kwargs.host}}}/start"
---
done
"""


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "docroot"
    (root / "_commands").mkdir(parents=True)
    (root / "guide.yaml").write_text("url-hosts: [accounts.example.com, '*.example.org']\n")
    for name, text in {"deploy": DEPLOY, "key": KEY, "hosted": HOSTED}.items():
        (root / "_commands" / f"{name}.md").write_text(text)
    return create_server(root, project=tmp_path, watch=False, clock=person())  # a person answers each form


class Callback:
    """An elicitation callback for `mcp.ClientSession`: answers forms from `forms`, URL steps with `link`, and records both."""

    def __init__(self, link: str = "accept", **forms: dict[str, Any]) -> None:
        self.link, self.forms, self.seen = link, forms, []

    async def __call__(self, context, params) -> ElicitResult:
        self.seen.append(params)
        if isinstance(params, ElicitRequestURLParams):
            return ElicitResult(action=self.link)
        first = next(iter(params.requested_schema["properties"]))
        return ElicitResult(action="accept", content=self.forms[first])

    @property
    def links(self) -> list[ElicitRequestURLParams]:
        return [params for params in self.seen if isinstance(params, ElicitRequestURLParams)]


class FormsOnly(ClientSession):
    """A client that shows forms but declares no URL mode."""

    def _build_capabilities(self, version):  # the SDK declares both modes with any callback; this client declares forms only
        capabilities = super()._build_capabilities(version)
        return capabilities.model_copy(update={"elicitation": ElicitationCapability(form=FormElicitationCapability())})


@asynccontextmanager
async def sdk_session(server, mode: str, callback=None, session_class=ClientSession):
    """A real `mcp.ClientSession` on in-memory streams to the server, opened in this test's era."""
    transport = FastMCPTransport(server)
    async with transport.connect_session(transport_options=TransportOptions(session_class=session_class), elicitation_callback=callback) as session:
        if mode == "legacy":
            await session.initialize()
        else:
            await session.discover()
        yield session


async def rounds(session: ClientSession, uri: str, callback) -> tuple[str, list[InputRequiredResult]]:
    """The text of a read, answering each 2026-07-28 `input_required` round with `callback`; and the rounds seen."""
    seen: list[InputRequiredResult] = []
    result = await session.read_resource(uri, allow_input_required=True)
    while isinstance(result, InputRequiredResult):
        seen.append(result)
        responses = {}
        for key, asked in result.input_requests.items():
            assert isinstance(asked, ElicitRequest)
            responses[key] = await callback(None, asked.params)
        result = await session.read_resource(uri, allow_input_required=True, input_responses=responses, request_state=result.request_state)
    return result.contents[0].text, seen


async def test_c5_url_the_sdk_client_opens_the_link_and_the_template_sees_it_opened(server, mode):
    callback = Callback(env={"env": "production", "note": "a b&c/d"})
    async with sdk_session(server, mode, callback) as session:
        text, seen = await rounds(session, "guide://_deploy", callback)
    assert text == "Deploy to production. Signed in.\n"
    [link] = callback.links
    assert link.url == f"{SIGN_IN}?env=production&note=a%20b%26c%2Fd" and link.message == "Sign in to the deploy service."
    assert [type(params).__name__ for params in callback.seen] == ["ElicitRequestFormParams", "ElicitRequestURLParams"]
    if mode == "2026-07-28":
        assert [list(result.input_requests) for result in seen] == [["target"], ["signin"]]
    else:
        assert link.elicitation_id and len(link.elicitation_id) == 32


async def test_c5_url_a_step_that_does_not_apply_is_not_asked(server, mode):
    callback = Callback(env={"env": "staging"})
    async with sdk_session(server, mode, callback) as session:
        text, _ = await rounds(session, "guide://_deploy", callback)
    assert text == "Deploy to staging.\n" and callback.links == []


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_c5_url_decline_and_cancel_without_fallback_fail(server, mode, action):
    callback = Callback(link=action)
    async with sdk_session(server, mode, callback) as session:
        with pytest.raises(MCPError) as failed:
            await rounds(session, "guide://_deploy?env=production", callback)
    error = failed.value.error
    assert error.code == INVALID_PARAMS
    assert error.message == f"form signin was {'declined' if action == 'decline' else 'cancelled'}"
    assert error.data["reason"] == ("declined" if action == "decline" else "cancelled") and error.data["fields"] == []


async def test_c5_url_a_cancel_with_fallback_renders_without_it(server, mode):
    callback = Callback(link="cancel", kind={"kind": "feature"})
    async with sdk_session(server, mode, callback) as session:
        text, seen = await rounds(session, "guide://_key", callback)
    assert text == "kind=feature issue= open https://accounts.example.com/keys/new first\n"
    if mode == "2026-07-28":
        assert list(seen[0].input_requests) == ["apikey", "kind"]  # a URL step goes in the same result as the forms


async def test_c5_url_the_sealed_state_carries_the_done_step_and_refuses_replays(server, mode):
    if mode == "legacy":
        pytest.skip("the continuation state is 2026-07-28's")
    callback = Callback(kind={"kind": "bug"}, issue={"issue": 7})
    async with sdk_session(server, mode, callback) as session:
        first = await session.read_resource("guide://_key", allow_input_required=True)
        answers = {"apikey": ElicitResult(action="accept"), "kind": ElicitResult(action="accept", content={"kind": "bug"})}
        second = await session.read_resource("guide://_key", allow_input_required=True, input_responses=answers, request_state=first.request_state)
        assert list(second.input_requests) == ["issue"]  # the link is not asked again: the state says it is done
        done = await session.read_resource("guide://_key", allow_input_required=True, request_state=second.request_state,
                                           input_responses={"issue": ElicitResult(action="accept", content={"issue": 7})})
        with pytest.raises(MCPError) as replayed:  # round 1's answers again, on round 2's state
            await session.read_resource("guide://_key", allow_input_required=True, input_responses=answers, request_state=second.request_state)
        with pytest.raises(MCPError) as foreign:
            await session.read_resource("guide://_deploy", allow_input_required=True, input_responses={}, request_state=second.request_state)
        tampered = second.request_state[:-6] + ("A" if second.request_state[-6] != "A" else "B") + second.request_state[-5:]
        with pytest.raises(MCPError) as changed:
            await session.read_resource("guide://_key", allow_input_required=True, input_responses={}, request_state=tampered)
    assert done.contents[0].text == "kind=bug issue=7 key-page-opened\n"
    assert "answers for forms that were not requested: apikey, kind" in replayed.value.error.message
    assert foreign.value.error.data["reason"] == "invalid_request_state"  # bound to the request it was made for
    assert changed.value.error.code < 0 and "guide://_key" not in changed.value.error.message


async def test_c5_url_a_client_without_url_mode_gets_the_link_in_the_failure(server, mode):
    callback = Callback(env={"env": "production", "note": "x"})
    async with sdk_session(server, mode, callback, FormsOnly) as session:
        with pytest.raises(MCPError) as failed:
            await rounds(session, "guide://_deploy", callback)
    error = failed.value.error
    link = f"{SIGN_IN}?env=production&note=x"
    assert error.message.startswith("form signin sends the person to a page, and this client cannot open URL-mode requests; give the person this link: "
                                    + link)
    assert error.data["reason"] == "link" and error.data["links"] == [{"form": "signin", "message": "Sign in to the deploy service.", "url": link}]
    assert [type(params).__name__ for params in callback.seen] == ["ElicitRequestFormParams"]
    if mode == "2026-07-28":
        assert error.code == MISSING_CAPABILITY and error.data["requiredCapabilities"] == {"elicitation": {"url": {}}}
    else:
        assert error.code == INVALID_PARAMS


async def test_c5_url_the_agent_gets_the_link_among_its_questions(server, mode):
    async with sdk_session(server, mode) as session:
        with pytest.raises(MCPError) as waiting:
            await session.read_resource("guide://_deploy", allow_input_required=True)
        with pytest.raises(MCPError) as due:
            await session.read_resource("guide://_deploy?env=production", allow_input_required=True)
        key = await session.read_resource("guide://_key?kind=feature", allow_input_required=True)
    questions = waiting.value.error.data["questions"]
    assert [(question["form"], question.get("url", "-")) for question in questions] == [("target", "-"), ("signin", None)]
    assert "2. Only if env is production: Sign in to the deploy service." in waiting.value.error.message
    assert due.value.error.data["reason"] == "link" and f"give the person this link: {SIGN_IN}?env=production&note=" in due.value.error.message
    assert key.contents[0].text == "kind=feature issue= open https://accounts.example.com/keys/new first\n"


async def test_c5_url_a_step_with_a_fallback_is_never_promised_to_the_agent(server, mode):
    # A client without links renders without the step (fallback: render): its questions must not promise the link (issue 34).
    async with sdk_session(server, mode) as session:
        with pytest.raises(MCPError) as asked:
            await session.read_resource("guide://_key", allow_input_required=True)
    message, questions = asked.value.error.message, asked.value.error.data["questions"]
    assert [question["form"] for question in questions] == ["kind", "issue"] and all("url" not in question for question in questions)
    assert "link" not in message and "keys/new" not in message


async def test_c5_url_a_link_to_a_host_not_listed_is_refused_when_rendered(server, mode):
    callback = Callback(host={"host": "evil.test/x?"})
    async with sdk_session(server, mode, callback) as session:
        with pytest.raises(MCPError) as refused:
            await rounds(session, "guide://_hosted", callback)
        callback.forms["host"] = {"host": "team.example.org"}
        text, _ = await rounds(session, "guide://_hosted", callback)
    message = refused.value.error.message
    assert message == ("form open: the link https://evil.test/x?/start goes to host evil.test, which is not listed under url-hosts"
                       " in guide.yaml (accounts.example.com, *.example.org)")
    assert "\n" not in message and callback.links[-1].url == "https://team.example.org/start" and text == "done\n"


async def test_c5_url_the_fastmcp_client_hands_the_url_request_to_its_handler(server, mode):
    seen = []

    async def handler(message, response_type, params, context):
        seen.append((message, response_type, getattr(params, "mode", None), getattr(params, "url", None)))
        return {"env": "production"} if params.mode == "form" else ElicitResult(action="accept")

    async with Client(server, mode=mode, elicitation_handler=handler) as client:
        contents = await client.read_resource("guide://_deploy")
    assert contents[0].text == "Deploy to production. Signed in.\n"
    assert seen[-1] == ("Sign in to the deploy service.", None, "url", f"{SIGN_IN}?env=production&note=")


async def test_c7_12_url_a_read_with_a_url_step_goes_from_the_app_form_to_the_agent(server, mode):
    """Guide's App page shows forms, not links: a read whose URL step has no fallback is the agent's; one with a fallback keeps the App."""
    apps = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})
    async with Client(server, mode=mode, extensions=[apps]) as client:
        with pytest.raises(MCPError) as failed:
            await client.read_resource("guide://_deploy")
        key = (await client.read_resource("guide://_key"))[0].text
        opened = await client.call_tool("open_form", {"uri": "guide://_key"})
    assert failed.value.error.data["reason"] == "missing"
    assert [question["form"] for question in failed.value.error.data["questions"]] == ["target", "signin"]
    assert "Call Guide's `open_form` tool" in key and "with the argument uri set to `guide://_key`" in key
    assert [form["id"] for form in opened.structured_content["forms"]] == ["kind"]  # the URL step took its fallback


@pytest.mark.slow
async def test_c5_url_over_stdio_the_sdk_client_opens_the_bundled_examples_links(mode, tmp_path):
    """The bundled example's `deploy` (docs/authoring.md) through a spawned `guide serve`, as a client author would drive it."""
    callback = Callback(env={"env": "production"})
    environment = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "guide", "serve", "--project", str(tmp_path)],
                                       env={**environment, "FASTMCP_LOG_LEVEL": "CRITICAL"}, cwd=str(tmp_path))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream, elicitation_callback=callback) as session:
                await (session.initialize() if mode == "legacy" else session.discover())
                text, _ = await rounds(session, "guide://_deploy", callback)
    assert [link.url for link in callback.links] == ["https://accounts.example.com/signin?env=production&return=guide",
                                                     "https://accounts.example.com/keys/new?scope=deploy"]
    assert "You are signed in to the deploy service for production." in text and "The key page was opened" in text


async def test_c5_url_a_text_rendered_without_the_link_is_not_served_to_a_client_that_opens_links(server, mode):
    """The memo of fresh reads keys on whether the client opens links: the same address renders differently for each."""
    async with sdk_session(server, mode, Callback(), FormsOnly) as session:
        without = (await session.read_resource("guide://_key?kind=feature", allow_input_required=True)).contents[0].text
    callback = Callback()
    async with sdk_session(server, mode, callback) as session:
        opened, _ = await rounds(session, "guide://_key?kind=feature", callback)
    assert without == "kind=feature issue= open https://accounts.example.com/keys/new first\n"
    assert opened == "kind=feature issue= key-page-opened\n" and [link.url for link in callback.links] == ["https://accounts.example.com/keys/new"]
