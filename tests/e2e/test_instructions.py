"""Issue 37, part 2: `instructions:` in guide.yaml gives every session its context as it connects, beside the catalog, within a
size cap; an edit of its text reaches the next session and is announced as listing changes are, in both eras."""

import asyncio
from contextlib import AsyncExitStack

from e2e_support import eventually
from fastmcp import Client
from mcp.client.subscriptions import listen
from test_catalog import ToolChanges, negotiated

from guide.docroot import bundles
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.server.app import INSTRUCTIONS, create_server

CONFIG = "instructions: [start, '@house']\ncollections:\n  house: [style/*]\n"
START = "---\ntitle: Start here\n---\nRead the review checklist before any change.\n"
CONTEXT = """\
# Start here (guide://start)

Read the review checklist before any change.

# style/words (guide://style/words)

Short words.
"""


def write(docroot, **files):
    for rel, text in files.items():
        docroot.write(rel, text)


async def instructions_of(server, mode: str) -> str:
    async with Client(server, mode=negotiated(mode)) as client:
        if mode == "2026-07-28":
            assert client.session.protocol_version == "2026-07-28"  # negotiated by server/discover, which carries the instructions
        return client.instructions


async def test_a_session_gets_the_context_before_the_catalog_and_the_read_tool_does_not(docroot, mode, connect):
    write(docroot, **{"guide.yaml": CONFIG, "start.md": START, "style/words.md": "Short words.\n"})
    server = create_server(docroot.root, project=docroot.project, watch=False)
    instructions = await instructions_of(server, mode)
    async with connect(server) as client:
        tool = next(tool.description for tool in await client.list_tools() if tool.name == "read_resource")
    assert instructions.startswith(f"{INSTRUCTIONS}\n\n{CONTEXT}\n\nCommands and skills (read one with Guide's `read_resource` tool")
    assert "Start here" not in tool and "- guide://_review: " in tool  # the tool's description holds the catalog only


async def test_an_edit_of_the_context_is_announced_and_a_new_session_sees_the_new_text(docroot, mode, connect):
    write(docroot, **{"guide.yaml": CONFIG, "start.md": START, "style/words.md": "Short words.\n"})
    server = create_server(docroot.root, project=docroot.project)
    changes = ToolChanges()
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(connect(server, message_handler=changes))
        if mode == "2026-07-28":
            await stack.enter_async_context(listen(client.session, tools_list_changed=True))
        before = await instructions_of(server, mode)
        docroot.write("style/words.md", "Plain words, short sentences.\n")  # a body edit: no listing changes
        await eventually(lambda: asyncio.sleep(0, changes.tools), timeout=30)
        after = await instructions_of(server, mode)
    assert "Short words." in before and "Short words." not in after
    assert "# style/words (guide://style/words)\n\nPlain words, short sentences.\n" in after


async def test_a_context_past_the_cap_stops_after_the_whole_documents_that_fit_with_a_note(docroot, mode):
    page = "A line of the house rules, long enough to count.\n" * 120  # about 6,000 characters each
    write(docroot, **{"guide.yaml": "instructions: [rules/*]\n", **{f"rules/r{number}.md": page for number in range(4)}})
    server = create_server(docroot.root, project=docroot.project, watch=False)
    instructions = await instructions_of(server, mode)
    context = instructions[len(INSTRUCTIONS) + 2:instructions.index("\n\nCommands and skills")]
    size = len("\n".join(bundles.section(f"rules/r{number}", f"rules/r{number}.md", None, page) for number in range(4)))
    assert len(context) <= bundles.MAX_CONTEXT
    assert context.count("# rules/r") == 2 and "# rules/r1 (guide://rules/r1)" in context
    assert context.endswith(
        f"(The session context stops here: guide.yaml's `instructions` come to {size:,} characters, and a session is"
        f" given at most {bundles.MAX_CONTEXT:,}. Read the rest when you need it: guide://rules/r2, guide://rules/r3.)\n"
    )
    report = lint(Docroot(docroot.root).build())
    assert [str(problem) for problem in report.problems if problem.path == "guide.yaml"] == [
        f"guide.yaml:1: `instructions` come to {size:,} characters with their headings; a client is given at most"
        f" {bundles.MAX_CONTEXT:,} as it connects, so the rest is cut with a note: name fewer or shorter documents"
    ]


async def test_without_instructions_a_session_gets_the_catalog_as_before(server, mode):
    instructions = await instructions_of(server, mode)
    assert instructions.startswith(f"{INSTRUCTIONS}\n\nCommands and skills")
