"""Issue 37, part 3: a folder address and a named collection return their documents in one read, in order, each with its
heading, within the output cap (and fail in one line past it), through a real client in both eras."""

import pytest
from e2e_support import INVALID_PARAMS, eventually, read, read_error

from guide.server.app import create_server

FILES = {
    "guide.yaml": """\
        flags: {team: platform}
        collections:
          guidelines: [review/checklist, lang/*, "@data"]
          data: [data/limits]
        """,
    "lang/python.md": "---\ntitle: Python conventions\ndescription: How we write Python.\n---\nUse black.\n",
    "lang/go.md": "Use gofmt.\n",
    "lang/cobol.md": "---\nrequires-team: mainframe\n---\nNot for us.\n",
    "review/checklist.md": "- tests pass\n",
    "data/limits.json": '{"cpu": 4}\n',
}
GUIDELINES = """\
# review/checklist (guide://review/checklist)

- tests pass

# lang/go (guide://lang/go)

Use gofmt.

# Python conventions (guide://lang/python)

Use black.

# data/limits (guide://data/limits)

```json
{"cpu": 4}
```
"""


@pytest.fixture
def bundled(empty_docroot):
    for rel, text in FILES.items():
        empty_docroot.write(rel, text)
    return empty_docroot


async def test_a_collection_returns_its_documents_in_order_each_with_its_heading(bundled, connect):
    server = create_server(bundled.root, bundled.project, watch=False)
    async with connect(server) as client:
        text = await read(client, "guide://%40guidelines")
        as_typed = await read(client, "guide://@guidelines")  # the client sends guide://guidelines: no document has that name
        tool = await client.call_tool("read_resource", {"uri": "guide://@guidelines"})
        listed = {resource.name: str(resource.uri) for resource in await client.list_resources()}
    assert text == as_typed == tool.content[0].text == GUIDELINES  # lang/cobol does not apply, so it is left out
    assert listed["@guidelines"] == "guide://%40guidelines" and listed["@data"] == "guide://%40data"


async def test_a_folder_address_returns_every_document_below_it_by_path(bundled, connect):
    server = create_server(bundled.root, bundled.project, watch=False)
    async with connect(server) as client:
        text = await read(client, "guide://lang/")
        missing = await read_error(client, "guide://langs/")
    assert text == "# lang/go (guide://lang/go)\n\nUse gofmt.\n\n# Python conventions (guide://lang/python)\n\nUse black.\n"
    assert missing.error.code == INVALID_PARAMS
    assert missing.error.message == "no document in folder langs/; guide://_help lists the commands, skills and documents"


async def test_a_bundle_past_the_output_cap_fails_in_one_line_naming_how_many_documents_fit(bundled, connect):
    cap = len(GUIDELINES) - 10  # the last section does not fit
    server = create_server(bundled.root, bundled.project, watch=False, max_output=cap)
    async with connect(server) as client:
        error = await read_error(client, "guide://%40guidelines")
        folder = await read(client, "guide://lang/")  # within the cap: served
    message = error.error.message
    assert "\n" not in message
    assert message == (f"guide://%40guidelines holds 4 documents, more than one read returns: the first 3 fit in the output cap of {cap:,}"
                       f" characters and the next would make {len(GUIDELINES):,}; read fewer at once (a smaller collection, a folder"
                       " below it, or its documents one by one)")
    assert folder.startswith("# lang/go")


async def test_a_broken_collection_says_what_is_wrong_and_an_edit_fixes_it(bundled, connect):
    bundled.write("guide.yaml", FILES["guide.yaml"].replace("lang/*", "lang/pyhton"))
    server = create_server(bundled.root, bundled.project)
    async with connect(server) as client:
        broken = await read_error(client, "guide://%40guidelines")
        bundled.write("guide.yaml", FILES["guide.yaml"])

        async def fixed():
            try:
                return await read(client, "guide://%40guidelines") == GUIDELINES
            except Exception:
                return False

        await eventually(fixed)
    assert broken.error.message == "guide.yaml:3: `lang/pyhton` names no document; did you mean `lang/python`?"
