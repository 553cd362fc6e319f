"""Documents: Markdown, plain text, JSON and YAML files served as they are, listed in help; near misses suggested (C2, C3)."""

import pytest
from e2e_support import INVALID_PARAMS, prompt_error, read, read_error

from guide.server.app import create_server

FILES = {
    "runbooks/database.md": "# Database runbook\n",
    "runbooks/on-call.txt": "Page the primary first.\n",
    "data/limits.json": '{"cpu": 4}\n',
    "data/owners.yaml": "database: ada\n",
    "data/logo.png": "not served\n",
    "_commands/review.md": "REVIEW\n",
}


@pytest.fixture
def documents_server(empty_docroot):
    for rel, text in FILES.items():
        empty_docroot.write(rel, text)
    return create_server(empty_docroot.root, empty_docroot.project, watch=False)


async def test_plain_files_are_served_as_text_with_their_type(documents_server, connect):
    async with connect(documents_server) as client:
        listed = {str(r.uri): r.mime_type for r in await client.list_resources() if not str(r.uri).startswith("guide://_")}
        reads = {uri: (await client.read_resource(uri))[0] for uri in listed}
    assert listed == {
        "guide://runbooks/database": "text/markdown",
        "guide://runbooks/on-call": "text/plain",
        "guide://data/limits": "application/json",
        "guide://data/owners": "application/yaml",
    }
    assert reads["guide://data/limits"].text == '{"cpu": 4}\n'
    assert reads["guide://runbooks/on-call"].text == "Page the primary first.\n"
    assert {uri: content.mime_type for uri, content in reads.items()} == listed


async def test_help_lists_the_documents(documents_server, connect):
    async with connect(documents_server) as client:
        overview = await read(client, "guide://_help")
    documents = overview.split("## Documents", 1)[1]
    for uri in ("guide://data/limits", "guide://data/owners", "guide://runbooks/database", "guide://runbooks/on-call"):
        assert f"`{uri}`" in documents
    assert "logo" not in overview


async def test_an_address_with_the_extension_suggests_the_one_without(documents_server, connect):
    async with connect(documents_server) as client:
        document = await read_error(client, "guide://runbooks/database.md")
        json_document = await read_error(client, "guide://data/limits.json")
        command = await read_error(client, "guide://_reveiw")
        prompt = await prompt_error(client, "guide", {"command": ":reveiw"})
    assert document.error.code == INVALID_PARAMS
    assert document.error.message == "no document runbooks/database.md; did you mean guide://runbooks/database?"
    assert json_document.error.message == "no document data/limits.json; did you mean guide://data/limits?"
    assert command.error.message == "no command reveiw; did you mean review?"
    assert "did you mean review?" in prompt.error.message
