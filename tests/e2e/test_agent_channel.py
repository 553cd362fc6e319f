"""C7.12 (c): the agent channel. A client that shows no form learns, from one failed read, every question to put to
the person (follow-ups with the condition that opens them) and the way back in its own route; filled in, that way
renders. Both eras, over a resource read, the `read_resource` tool, a command's prompt and the `guide` prompt."""

import pytest
from e2e_support import prompt_error, prompt_text, read, read_error

from guide.scaffold import DOCROOT
from guide.server.app import create_server

KIND = "<bug|feature>"


@pytest.fixture
def starter(tmp_path):
    """A server on the docroot `guide init` writes: `_change` asks `kind`, then `issue` when kind is bug."""
    return create_server(DOCROOT, project=tmp_path, watch=False)


def asked(data: dict) -> list[tuple[str, dict | None, list[str]]]:
    return [(question["form"], question["when"], [field["keyword"] for field in question["fields"]]) for question in data["questions"]]


def defaulted(data: dict) -> list[tuple[str, list[str]]]:
    return [(question["form"], [field["keyword"] for field in question["defaults"]]) for question in data["questions"] if question["defaults"]]


async def test_c7_12_one_failed_read_lists_every_question_and_the_filled_address_renders(starter, connect, mode):
    async with connect(starter) as client:
        error = await read_error(client, "guide://_change")
        retry = error.error.data["retry"]
        bug = await read(client, retry.replace(KIND, "bug") + "&issue=42")
        feature = await read(client, retry.replace(KIND, "feature"))
    text = error.error.message
    assert asked(error.error.data) == [("kind", None, ["kind"]), ("issue", {"kind": ["bug"]}, ["issue"]), ("checks", None, [])]
    assert defaulted(error.error.data) == [("checks", ["test_command"])]  # a default is shown apart, never asked as a question
    assert "Do not guess these values" in text
    assert "1. What kind of change is this?\n   - `kind` (string, required; one of: bug (Fix a bug), feature (Add a feature)): Kind of change" in text
    assert "2. Only if kind is bug: Which issue does the fix close?\n   - `issue` (integer, required; at least 1): Issue number" in text
    assert "these defaults are used:\n   - `test_command` = make test" in text
    assert f"    guide://_change?kind={KIND}\n" in text and "If kind is bug, also add issue=<integer>." in text
    assert retry == f"guide://_change?kind={KIND}"
    assert bug.startswith("# Fix issue #42") and "run `make test`" in bug
    assert feature.startswith("# New feature")


async def test_c7_12_the_tool_caller_gets_the_same_questions_and_address(starter, connect, mode):
    async with connect(starter) as client:
        failed = await client.call_tool("read_resource", {"uri": "guide://_change?kind=bug"}, raise_on_error=False)
        done = await client.call_tool("read_resource", {"uri": failed.structured_content["retry"].replace("<integer>", "7")})
    assert failed.is_error and "1. Which issue does the fix close?" in failed.content[0].text
    assert "    guide://_change?kind=bug&issue=<integer>\n" in failed.content[0].text
    assert asked(failed.structured_content)[0] == ("issue", None, ["issue"])
    assert done.content[0].text.startswith("# Fix issue #7")


async def test_c7_12_a_prompt_caller_is_told_prompt_arguments_and_they_render(starter, connect, mode):
    async with connect(starter) as client:
        error = await prompt_error(client, "change")
        arguments = error.error.data["prompt"]["arguments"]
        text = await prompt_text(client, "change", {**arguments, "kind": "bug", "issue": "42"})
    message = error.error.message
    assert "guide://" not in message
    assert message.partition("\n")[0].endswith(f"supply the prompt arguments: kind (string, required; one of: bug, feature); for example the prompt change with kind={KIND}")
    assert "Then get Guide's prompt change again" in message and "If kind is bug, also add issue=<integer>." in message
    assert error.error.data["prompt"] == {"name": "change", "arguments": {"kind": KIND}}
    assert text.startswith("# Fix issue #42")


async def test_c7_12_a_guide_prompt_caller_is_told_the_route_line_and_it_renders(starter, connect, mode):
    async with connect(starter) as client:
        error = await prompt_error(client, "guide", {"command": ":change"})
        line = error.error.data["prompt"]["arguments"]["command"]
        text = await prompt_text(client, "guide", {"command": line.replace(KIND, "bug") + " --issue=9"})
    assert line == f"_change --kind={KIND}"
    assert "guide://" not in error.error.message and "If kind is bug, also add --issue=<integer>." in error.error.message
    assert text.startswith("# Fix issue #9")


FETCH = """---
elicitation:
  where:
    message: Where from?
    schema:
      type: object
      properties:
        where: {type: string, enum: [local, remote], default: remote}
      required: [where]
  ref:
    message: Which ref?
    when: {where: [remote]}
    schema:
      type: object
      properties:
        ref: {type: string}
      required: [ref]
---
FETCH {{kwargs.where}} {{kwargs.ref}}
"""


async def test_c7_12_a_follow_up_the_way_back_already_holds_is_not_added_twice(empty_docroot, connect, mode):
    # Issue 34 (1): `where`'s default opens `ref`, so the address to read holds ref=<string> already; the follow-up must not say
    # "also add ref=<string>" again, but that ref goes when the person chooses another `where`.
    empty_docroot.write("_commands/fetch.md", FETCH)
    async with connect(create_server(empty_docroot.root, project=empty_docroot.project, watch=False)) as client:
        error = await read_error(client, "guide://_fetch")
        kept = await read(client, error.error.data["retry"].replace("<string>", "main"))
        chosen = await read(client, "guide://_fetch?where=local")
    text = error.error.message
    assert "    guide://_fetch?ref=<string>\n" in text
    assert "also add" not in text and "\nUnless where is remote, leave out ref.\n" in text
    assert (kept, chosen) == ("FETCH remote main\n", "FETCH local \n")


async def test_c7_12_a_follow_up_whose_answer_the_address_gives_is_not_asked_again(starter, connect, mode):
    # Issue 34 (1): the address already holds `issue`, so the condition that would open its question changes nothing to add.
    async with connect(starter) as client:
        error = await read_error(client, "guide://_change?issue=42")
        bug = await read(client, error.error.data["retry"].replace(KIND, "bug"))
    text = error.error.message
    assert "issue=<" not in text and "also add" not in text and "Which issue" not in text
    assert asked(error.error.data) == [("kind", None, ["kind"]), ("checks", None, [])]  # no question for `issue`
    assert error.error.data["retry"] == f"guide://_change?issue=42&kind={KIND}"
    assert bug.startswith("# Fix issue #42")
