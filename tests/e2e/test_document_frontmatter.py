"""Issue 21, item 1 (C2): a document's frontmatter is read, never served, through a real client in both eras."""

import asyncio
from contextlib import AsyncExitStack

import pytest
from e2e_support import INVALID_PARAMS, eventually, read, read_error
from live_support import Recorder, connected

from guide.server.app import create_server

FILES = {
    "guide.yaml": "flags:\n  team: platform\n",
    "notes.md": "---\ndescription: Data team notes\nrequires-team: data\n---\n# Notes\n",
    "runbook.md": "---\ndescription: Platform runbook\nrequires-team: platform\n---\n# Runbook\n\nRestart the pods.\n",
    "plain.md": "# Plain\n",
    "broken.md": "---\ndescription: [unclosed\n---\nbody\n",
    "_skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage.\n---\nT\n",
    "_skills/triage/notes.md": "---\ndescription: Member notes\n---\nM\n",
}


@pytest.fixture
def frontmatter_server(empty_docroot):
    for rel, text in FILES.items():
        empty_docroot.write(rel, text)
    return create_server(empty_docroot.root, empty_docroot.project, watch=False)


async def test_21_1_a_documents_description_is_its_listed_description(frontmatter_server, connect):
    async with connect(frontmatter_server) as client:
        listed = {str(r.uri): r.description for r in await client.list_resources()}
    assert listed["guide://runbook"] == "Platform runbook"
    assert listed["guide://plain"] == "document"  # no frontmatter: as before


async def test_21_1_help_shows_a_documents_description(frontmatter_server, connect):
    async with connect(frontmatter_server) as client:
        documents = (await read(client, "guide://_help")).split("## Documents", 1)[1]
    assert "- `guide://runbook`: Platform runbook\n" in documents
    assert "- `guide://plain`: plain.md\n" in documents


async def test_21_1_a_document_whose_requires_fail_is_not_listed_and_reading_it_is_not_found(frontmatter_server, connect):
    async with connect(frontmatter_server) as client:
        listed = {str(r.uri) for r in await client.list_resources()}
        overview = await read(client, "guide://_help")
        hidden = await read_error(client, "guide://notes")
        near_hidden = await read_error(client, "guide://note")
        near_applying = await read_error(client, "guide://runbok")
        tool = await client.call_tool("read_resource", {"uri": "guide://notes"}, raise_on_error=False)
    assert "guide://notes" not in listed and "guide://runbook" in listed
    assert "guide://notes`" not in overview
    assert hidden.error.code == INVALID_PARAMS
    assert hidden.error.message == "no document notes; guide://_help lists the commands, skills and documents"
    assert near_hidden.error.message == "no document note; guide://_help lists the commands, skills and documents"
    assert near_applying.error.message == "no document runbok; did you mean guide://runbook?"
    assert tool.is_error and tool.content[0].text == hidden.error.message


async def test_21_1_a_document_is_served_without_its_frontmatter_block(frontmatter_server, connect):
    async with connect(frontmatter_server) as client:
        contents = await client.read_resource("guide://runbook")
        tool = await client.call_tool("read_resource", {"uri": "guide://runbook"})
        member = await read(client, "guide://$triage/notes.md")
    assert [(content.text, content.mime_type) for content in contents] == [("# Runbook\n\nRestart the pods.\n", "text/markdown")]
    assert tool.content[0].text == "# Runbook\n\nRestart the pods.\n"
    assert member == FILES["_skills/triage/notes.md"]  # a skill member is served as written


async def test_21_1_a_document_whose_frontmatter_is_not_yaml_fails_naming_file_and_line(frontmatter_server, connect):
    async with connect(frontmatter_server) as client:
        error = await read_error(client, "guide://broken")
        listed = {str(r.uri) for r in await client.list_resources()}
        runbook = await read(client, "guide://runbook")
    assert error.error.message.startswith("broken.md:3: frontmatter is not valid YAML")
    assert "\n" not in error.error.message and "Traceback" not in error.error.message
    assert "guide://broken" in listed and runbook.startswith("# Runbook")  # the rest serves on


async def test_21_1_an_edit_that_makes_a_document_not_apply_is_announced_and_it_is_then_not_found(empty_docroot, connect, mode):
    for rel, text in FILES.items():
        empty_docroot.write(rel, text)
    server = create_server(empty_docroot.root, empty_docroot.project)
    recorder = Recorder()
    async with AsyncExitStack() as stack:
        client = await connected(stack, connect, server, mode, recorder)
        assert "guide://runbook" in {str(r.uri) for r in await client.list_resources()}
        assert (await read(client, "guide://runbook")).startswith("# Runbook")
        empty_docroot.write("runbook.md", FILES["runbook.md"].replace("requires-team: platform", "requires-team: data"))
        await eventually(lambda: asyncio.sleep(0, recorder.resources), timeout=30)
        listed = {str(r.uri) for r in await client.list_resources()}
        gone = await read_error(client, "guide://runbook")
    assert "guide://runbook" not in listed and "guide://plain" in listed
    assert gone.error.message.startswith("no document runbook;")
