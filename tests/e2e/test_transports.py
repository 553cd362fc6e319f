"""The core flows over real transports: `guide serve` on stdio and on streamable HTTP (`/mcp`), in both eras."""

import asyncio
import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from e2e_docroot import write_base_docroot
from e2e_support import Elicitor, eventually, missing_keywords_error, read, read_error
from fastmcp.client.transports import StdioTransport
from live_support import Recorder, connected
from support.servers import guide_http

from guide import __version__

CEILING = 2 * 1024**3  # bytes of address space the HTTP server may map


def _serve_args(docroot: Path, project: Path, *extra: str) -> list[str]:
    return ["-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project), *extra]


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    env["FASTMCP_LOG_LEVEL"] = "CRITICAL"
    env["GUIDE_UNREAD_DECLINE"] = "0"  # the tests' clients answer at once, as no person could: each of their declines is a person's here
    return env


@pytest.fixture
def stdio(tmp_path):
    """A factory for stdio transports that start `python -m guide serve` over a fresh standard docroot."""
    docroot, project = tmp_path / "docroot", tmp_path / "project"
    write_base_docroot(docroot)
    project.mkdir()
    return lambda: StdioTransport(command=sys.executable, args=_serve_args(docroot, project), env=_environment(), cwd=str(project))


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    """One `guide serve --transport http` process shared by this module's tests: its /mcp URL and its docroot."""
    base = tmp_path_factory.mktemp("http")
    docroot, project = base / "docroot", base / "project"
    write_base_docroot(docroot)
    project.mkdir()
    with guide_http(docroot, project, base / "serve.log", address_space=CEILING, env=_environment()) as (url, _, _process):
        yield url, docroot


@pytest.fixture
def http_url(http_server):
    """The /mcp URL of the module's HTTP server."""
    return http_server[0]


@pytest.fixture(params=["stdio", "http"])
def served(request, tmp_path):
    """A factory for a fresh transport target of either kind, and the docroot it serves."""
    if request.param == "stdio":
        return request.getfixturevalue("stdio"), tmp_path / "docroot"
    url, docroot = request.getfixturevalue("http_server")
    return (lambda: url), docroot


@pytest.fixture
def transport(served):
    """A factory for a fresh transport target of either kind."""
    return served[0]


async def test_branch_flow_interactive(transport, connect, mode):
    elicitor = Elicitor().answer(mode={"mode": "branch"}, reference=[{"reference": "bad ref"}, {"reference": "feature/x"}])
    async with connect(transport(), elicitor) as client:
        text = await read(client, "guide://_review")
        prompt = (await client.get_prompt("guide", {"command": ":review --mode uncommitted"})).messages[0].content.text
        if mode == "legacy":
            assert client.initialize_result.server_info.name == "guide"
            assert client.initialize_result.server_info.version == __version__
    assert text.strip() == "REVIEW mode=branch reference=feature/x extra="
    assert prompt.strip() == "REVIEW mode=uncommitted reference= extra="
    assert elicitor.keys == ["mode", "reference", "reference"]
    assert "[A-Za-z0-9._/-]+" in elicitor.calls[2].message
    assert elicitor.calls[0].schema == {
        "type": "object",
        "properties": {"mode": {"type": "string", "enum": ["uncommitted", "branch", "pull-request"]}},
        "required": ["mode"],
    }


async def test_keywords_only_asks_nothing(transport, connect):
    elicitor = Elicitor()
    async with connect(transport(), elicitor) as client:
        text = await read(client, "guide://_review?mode=branch&reference=feature%2Fx")
        tool = await client.call_tool("read_resource", {"uri": "guide://$triage?kind=feature"})
        help_text = await read(client, "guide://_review?help")
    assert text.strip() == "REVIEW mode=branch reference=feature/x extra="
    assert tool.content[0].text.strip() == "TRIAGE skill=triage kind=feature ticket= urgent=false"
    assert "pull-request" in help_text
    assert elicitor.calls == []


async def test_no_capability_failure_and_defaults(transport, connect, mode):
    async with connect(transport()) as client:
        error = await read_error(client, "guide://_review?extra=1")
        pair = await read_error(client, "guide://_pair")
        depth = await read(client, "guide://_depth")
        declined_tool = await client.call_tool("read_resource", {"uri": "guide://_nope"}, raise_on_error=False)
    missing_keywords_error(error, mode, "mode")
    missing_keywords_error(pair, mode, "alpha, zeta")
    assert depth.strip() == "DEFAULTED(depth) DEPTH quick"
    assert declined_tool.is_error and "nope" in declined_tool.content[0].text


async def test_decline_over_http(http_url, connect):
    elicitor = Elicitor().answer(kind="decline")
    async with connect(http_url, elicitor) as client:
        error = await read_error(client, "guide://$triage")
    assert error.error.message == "form report was declined; to go on without the form, supply its fields as keywords: kind (string, required; one of: bug, feature), urgent (boolean; default false)"


async def test_project_defaults_to_the_working_folder(tmp_path, connect):
    docroot, project = tmp_path / "docroot", tmp_path / "project"
    write_base_docroot(docroot)
    project.mkdir()
    (project / ".guide.yaml").write_text("phase: implementation\n", encoding="utf-8")
    elicitor = Elicitor().answer(phase={"phase": "check"})
    serve = ["-m", "guide", "serve", "--docroot", str(docroot)]
    async with connect(StdioTransport(command=sys.executable, args=serve, env=_environment(), cwd=str(project)), elicitor) as client:
        text = await read(client, "guide://_workflow/phase")
    assert text.strip() == "PHASE from=implementation to=check"
    assert elicitor.calls[0].schema["properties"]["phase"]["enum"] == ["discussion", "planning", "check", "review"]


async def test_a_file_added_reaches_the_client_as_a_list_change(served, connect, mode):
    """Legacy: a session notification; 2026-07-28: an event on the subscriptions/listen stream."""
    target, docroot = served
    recorder = Recorder()
    name = f"live-{mode}"
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, target(), mode, recorder)
        (docroot / "_commands" / f"{name}.md").write_text("---\ndescription: Added.\n---\nLIVE\n", encoding="utf-8")
        await eventually(lambda: asyncio.sleep(0, recorder.resources >= 1 and recorder.prompts >= 1), timeout=30)
        listed = {str(resource.uri) for resource in await client.list_resources()}
    assert f"guide://_{name}" in listed
