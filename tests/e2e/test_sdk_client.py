"""Issue 20: the MCP Python SDK's own `mcp.ClientSession` (not FastMCP's Client) drives `guide serve`.

Over stdio (a spawned `python -m guide serve`) and streamable HTTP, in both eras,
with and without an elicitation callback: listing, a document, a command with
its values in the address, a command that asks (the callback answers), the C7.6
failure with its structured data when there is no callback, prompts and the
`read_resource` tool. On 2026-07-28 the session is mechanics only, so these
tests run the `input_required` rounds themselves, as a client author would.
"""

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from e2e_support import MISSING_CAPABILITY
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequest, ElicitResult, InputRequiredResult
from support.servers import CEILING, guide_http, wait_healthy

from guide.examples import DOCROOT

ANSWERS = {"mode": {"mode": "branch"}, "reference": {"reference": "feature/search"}, "depth": {"depth": "thorough"}}
RETRY = "guide://_review?mode=<uncommitted|branch|pull-request>"


def serve_args(project: Path, *extra: str) -> list[str]:
    """`guide serve` on the bundled example docroot."""
    return ["-m", "guide", "serve", "--project", str(project), *extra]


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    env["FASTMCP_LOG_LEVEL"] = "CRITICAL"
    return env


@pytest.fixture(scope="module")
def http_url(tmp_path_factory) -> AsyncIterator[str]:
    """One `guide serve --transport http` process for this module: its /mcp URL."""
    project = tmp_path_factory.mktemp("sdk-project")
    with guide_http(DOCROOT, project, project / "serve.log", address_space=CEILING, env=environment()) as (url, port, process):
        wait_healthy(process, port)
        yield url


async def answer(context, params) -> ElicitResult:
    """The elicitation callback: answer each form by its first field, from `ANSWERS`."""
    first = next(iter(params.requested_schema["properties"]))
    return ElicitResult(action="accept", content=ANSWERS[first])


@pytest.fixture(params=["stdio", "http"])
def session(request, mode, tmp_path):
    """`session(callback=None)`: an initialised `mcp.ClientSession` over this test's transport and era."""

    @asynccontextmanager
    async def open_session(callback=None) -> AsyncIterator[ClientSession]:
        if request.param == "stdio":
            parameters = StdioServerParameters(command=sys.executable, args=serve_args(tmp_path), env=environment(), cwd=str(tmp_path))
            streams = stdio_client(parameters, errlog=open(os.devnull, "w"))  # noqa: SIM115 - closed with the process
        else:
            streams = streamable_http_client(request.getfixturevalue("http_url"))
        async with streams as (read_stream, write_stream):
            async with ClientSession(read_stream, write_stream, elicitation_callback=callback) as opened:
                if mode == "legacy":
                    await opened.initialize()
                else:
                    await opened.discover()
                yield opened

    return open_session


async def resolved(send: Callable[..., Awaitable], callback=None):
    """A request's final result: on 2026-07-28, answer each `input_required` round with `callback` and retry."""
    result = await send(input_responses=None, request_state=None)
    for _ in range(10):
        if not isinstance(result, InputRequiredResult):
            return result
        responses = {}
        for key, asked in result.input_requests.items():
            assert isinstance(asked, ElicitRequest) and callback is not None
            responses[key] = await callback(None, asked.params)
        result = await send(input_responses=responses, request_state=result.request_state)
    raise AssertionError("more than 10 rounds")


def reader(session: ClientSession, uri: str):
    return lambda **retry: session.read_resource(uri, allow_input_required=True, **retry)


async def test_listing_documents_and_a_command_with_its_values(session):
    async with session() as client:
        resources = {resource.uri for resource in (await client.list_resources()).resources}
        templates = {template.uri_template for template in (await client.list_resource_templates()).resource_templates}
        prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
        tools = {tool.name for tool in (await client.list_tools()).tools}
        document = await client.read_resource("guide://lang/python")
        command = await resolved(reader(client, "guide://_review?mode=branch&reference=feature%2Fsearch&depth=thorough"))
    assert {"guide://_review", "guide://$workflow-review", "guide://lang/python"} <= resources
    assert any(template.startswith("guide://_review{?") for template in templates)
    assert {"guide", "review", "workflow.phase"} <= prompts and tools == {"read_resource"}
    assert document.contents[0].text.startswith("# Python")
    assert "feature/search" in command.contents[0].text


async def test_a_command_that_asks_is_answered_by_the_callback(session):
    async with session(answer) as client:
        command = await resolved(reader(client, "guide://_review"), answer)
        prompt = await resolved(lambda **retry: client.get_prompt("review", {"mode": "uncommitted"}, allow_input_required=True, **retry), answer)
        route = await resolved(lambda **retry: client.get_prompt("guide", {"command": ":review --mode uncommitted --depth quick"}, allow_input_required=True, **retry), answer)
    assert "Compare `feature/search` with the main branch" in command.contents[0].text and "depth: **thorough**" in command.contents[0].text
    assert "uncommitted" in prompt.messages[0].content.text.lower()
    assert "uncommitted" in route.messages[0].content.text.lower()


async def test_without_a_callback_the_failure_names_the_keywords_and_carries_the_data(session, mode):
    async with session() as client:
        with pytest.raises(MCPError) as failed:
            await client.read_resource("guide://_review", allow_input_required=True)
        tool = await client.call_tool("read_resource", {"uri": "guide://_review"}, allow_input_required=True)
    error = failed.value.error
    assert error.message.startswith("this client cannot answer forms; supply the keywords: mode (string, required; one of: uncommitted, branch, pull-request)")
    assert error.message.partition("\n")[0].endswith(f"for example {RETRY}")
    assert error.data["reason"] == "missing" and error.data["retry"] == RETRY
    assert [field["keyword"] for field in error.data["fields"]] == ["mode"]
    if mode == "2026-07-28":
        assert error.code == MISSING_CAPABILITY and error.data["requiredCapabilities"] == {"elicitation": {"form": {}}}
    assert tool.is_error and tool.content[0].text == error.message
    assert tool.structured_content == {key: value for key, value in error.data.items() if key != "requiredCapabilities"}


async def test_without_a_callback_one_failed_read_lists_the_follow_up_questions_and_the_filled_address_renders(session):
    """C7.12 (c): the agent learns every question, follow-ups with their condition, from one failed read."""
    async with session() as client:
        with pytest.raises(MCPError) as failed:
            await client.read_resource("guide://_review", allow_input_required=True)
        error = failed.value.error
        asked = [(question["form"], question["when"]) for question in error.data["questions"]]
        retry = error.data["retry"].replace("<uncommitted|branch|pull-request>", "branch") + "&reference=feature%2Fsearch"
        rendered = await resolved(reader(client, retry))
        with pytest.raises(MCPError) as prompted:
            await client.get_prompt("review", {}, allow_input_required=True)
        filled = await resolved(lambda **more: client.get_prompt("review", {"mode": "branch", "reference": "feature/search"}, allow_input_required=True, **more))
    assert asked == [("target", None), ("reference", {"mode": ["branch", "pull-request"]}), ("depth", None)]
    assert "2. Only if mode is branch or pull-request: Enter the branch or pull request." in error.message
    assert "If mode is branch or pull-request, also add reference=<string>." in error.message
    assert "Compare `feature/search` with the main branch" in rendered.contents[0].text
    prompt_error = prompted.value.error
    assert "guide://" not in prompt_error.message and "the prompt review with mode=<uncommitted|branch|pull-request>" in prompt_error.message
    assert prompt_error.data["prompt"] == {"name": "review", "arguments": {"mode": "<uncommitted|branch|pull-request>"}}
    assert "Compare `feature/search` with the main branch" in filled.messages[0].content.text


async def test_the_read_resource_tool_reads_with_the_callback(session):
    async with session(answer) as client:
        asked = await resolved(lambda **retry: client.call_tool("read_resource", {"uri": "guide://_review"}, allow_input_required=True, **retry), answer)
        document = await client.call_tool("read_resource", {"uri": "guide://lang/python"})
    assert not asked.is_error and "feature/search" in asked.content[0].text
    assert document.content[0].text.startswith("# Python")


async def test_the_instructions_and_the_read_resource_tool_carry_the_catalog(session):
    """Issue 26: an agent that sees only tools learns the commands from the handshake and the tool, over stdio and HTTP."""
    async with session() as client:
        instructions = client.instructions
        tool = next(tool for tool in (await client.list_tools()).tools if tool.name == "read_resource")
    entry = "- guide://_review: Review a change: uncommitted work, a branch or a pull request. Needs mode=<uncommitted|branch|pull-request>;"
    assert instructions.startswith("Guide serves commands") and entry in instructions
    assert entry in tool.description and "- guide://$workflow-review: " in tool.description
