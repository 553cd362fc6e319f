"""Docroot configurations at the edges: authoring errors, a command named `guide`, gated skills, no workflow (C3-C5, C10)."""

import logging

import pytest
from e2e_support import prompt_text, read, read_error

from guide.server.app import create_server

BROKEN = """\
---
description: Declares a string field with a number key.
elicitation:
  settings:
    message: Configure it.
    schema:
      type: object
      properties:
        nickname: {type: string, minimum: 3}
---
BROKEN
"""


@pytest.fixture
def edge_server(empty_docroot):
    root = empty_docroot
    root.write("_commands/guide.md", "---\ndescription: A command that shares the route prompt's name.\n---\nGUIDE COMMAND x={{kwargs.x}}\n")
    root.write("_commands/broken.md", BROKEN)
    root.write("_commands/ok.md", "OK COMMAND\n")
    root.write(
        "_commands/phase.md",
        "---\nelicitation:\n  next:\n    message: Next?\n    schema:\n      type: object\n"
        "      properties:\n        phase: {type: string, source: workflow-phases}\n---\nPHASE\n",
    )
    root.write("_skills/misnamed/SKILL.md", "---\nname: other\n---\nMISNAMED\n")
    root.write("_skills/gated/SKILL.md", "---\nname: gated\nrequires-workflow: true\n---\nGATED\n")
    root.write("notes/.secret.md", "SECRET\n")
    root.write("notes/_draft.md", "DRAFT\n")
    root.write("notes/plain.md", "PLAIN\n")
    return create_server(root.root, root.project, watch=False)


async def test_command_named_guide_gets_no_prompt_of_its_own(edge_server, connect, elicitor):
    async with connect(edge_server, elicitor) as client:
        prompts = [prompt for prompt in await client.list_prompts() if prompt.name == "guide"]
        direct = await read(client, "guide://_guide?x=1")
        routed = await prompt_text(client, "guide", {"command": ":guide --x=2"})
        ok = await prompt_text(client, "guide", {"command": "_ok"})
    assert len(prompts) == 1 and [a.name for a in prompts[0].arguments] == ["command"]
    assert direct.strip() == "GUIDE COMMAND x=1"
    assert routed.strip() == "GUIDE COMMAND x=2"
    assert ok.strip() == "OK COMMAND"
    assert elicitor.calls == []


async def test_authoring_error_makes_only_that_entrypoint_unusable(edge_server, connect, elicitor):
    async with connect(edge_server, elicitor) as client:
        error = await read_error(client, "guide://_broken")
        tool = await client.call_tool("read_resource", {"uri": "guide://_broken"}, raise_on_error=False)
        described = await read(client, "guide://_help/broken")
        ok = await read(client, "guide://_ok")
    message = error.error.message
    assert "_commands/broken.md" in message and "nickname" in message and "minimum" in message
    assert "\n" not in message
    assert tool.is_error and tool.content[0].text == message
    assert "minimum" in described  # help still describes it, with its problem
    assert ok.strip() == "OK COMMAND"
    assert elicitor.calls == []


async def test_authoring_error_names_the_form(edge_server, connect):
    async with connect(edge_server) as client:
        error = await read_error(client, "guide://_broken")
    assert "settings" in error.error.message


async def test_workflow_source_without_phases_says_workflow_is_not_configured(edge_server, connect, elicitor):
    async with connect(edge_server, elicitor) as client:
        error = await read_error(client, "guide://_phase")
    assert "workflow is not configured" in error.error.message
    assert elicitor.calls == []


async def test_misnamed_and_gated_skills(edge_server, connect):
    async with connect(edge_server) as client:
        misnamed = await read_error(client, "guide://$misnamed")
        gated = await read_error(client, "guide://$gated")
        listed = {str(resource.uri) for resource in await client.list_resources()}
        overview = await read(client, "guide://_help")
    assert "other" in misnamed.error.message and "misnamed" in misnamed.error.message
    assert "gated" in gated.error.message
    assert "guide://$gated" not in listed and "guide://$gated" not in overview


async def test_hidden_names_are_never_documents(edge_server, connect):
    async with connect(edge_server) as client:
        plain = await read(client, "guide://notes/plain")
        errors = [await read_error(client, uri) for uri in ("guide://notes/.secret", "guide://notes/_draft", "guide://notes/..%2Fnotes%2Fplain", "guide://notes/plain.md")]
        listed = {str(resource.uri) for resource in await client.list_resources()}
    assert plain == "PLAIN\n"
    assert all(error.error.code == -32602 for error in errors)
    assert {uri for uri in listed if uri.startswith("guide://notes")} == {"guide://notes/plain"}


async def test_a_request_hitting_an_authoring_error_logs_one_line(empty_docroot, connect, caplog):
    empty_docroot.write("_commands/broken.md", "---\nelicitation: {f: {message: '', schema: {type: object, properties: {x: {type: string}}}}}\n---\nB\n")
    server = create_server(empty_docroot.root, project=empty_docroot.project, watch=False)
    async with connect(server) as client:
        caplog.clear()
        await read_error(client, "guide://_broken")
    failed = [record for record in caplog.records if record.name == "guide" and record.levelno >= logging.INFO and "broken" in record.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is None and "\n" not in failed[0].getMessage()
    assert "a form needs a non-empty string `message`" in failed[0].getMessage()


async def test_an_unexpected_error_is_logged_once_on_one_line_and_the_client_sees_no_internals(server, connect, caplog, monkeypatch):
    def explode(*args, **kwargs):
        raise ValueError("secret /etc/shadow detail")

    monkeypatch.setattr("guide.server.service.finish", explode)
    async with connect(server) as client:
        caplog.clear()
        error = await read_error(client, "guide://_pair?alpha=a&zeta=z")
    assert error.error.message == "Guide failed unexpectedly; the server log has the details"
    logged = [record for record in caplog.records if "ValueError" in record.getMessage() or record.exc_info]
    assert len(logged) == 1 and logged[0].exc_info is None and "\n" not in logged[0].getMessage()
    assert "secret /etc/shadow detail" in logged[0].getMessage()
