"""Issue 19, completion: huge or hostile `completion/complete` requests get bounded answers and the server stays up.

The bound is structural: the handler itself keeps at most `MAX_VALUES`
suggestions (and says how many matched), refuses input longer than any address
before any work, and answers an unknown or malformed reference with nothing.
"""

import json
from pathlib import Path

import pytest
from fastmcp import Client
from mcp_types import CompletionArgument, PromptReference, ResourceTemplateReference

from guide.docroot.folder import Docroot
from guide.project.context import Contexts
from guide.server.app import create_server
from guide.server.completion import MAX_INPUT, MAX_VALUES, completer

CHOICES = [f"c{number:05d}" for number in range(20_000)]  # about 200 KB of frontmatter, under its 256 KiB cap
COMMANDS = 300


def write_wide_docroot(root: Path) -> Path:
    """A docroot with a field of 20,000 choices and 300 commands."""
    (root / "_commands").mkdir(parents=True)
    schema = {"type": "object", "properties": {"pick": {"type": "string", "enum": CHOICES}}, "required": ["pick"]}
    frontmatter = json.dumps({"description": "Wide.", "elicitation": {"choose": {"message": "Pick one.", "schema": schema}}})
    (root / "_commands" / "wide.md").write_text(f"---\n{frontmatter}\n---\nWIDE {{{{kwargs.pick}}}}\n", encoding="utf-8")
    for number in range(COMMANDS):
        (root / "_commands" / f"cmd{number:03d}.md").write_text("---\ndescription: One of many.\n---\nC\n", encoding="utf-8")
    return root


@pytest.fixture
def wide(tmp_path) -> Path:
    return write_wide_docroot(tmp_path / "docroot")


async def test_a_field_with_thousands_of_choices_gets_at_most_the_cap_and_the_total(wide):
    complete = completer(Docroot(wide), Contexts(wide))
    answer = await complete(PromptReference(name="wide"), CompletionArgument(name="pick", value=""))
    assert answer.values == CHOICES[:MAX_VALUES]
    assert (answer.total, answer.has_more) == (len(CHOICES), True)
    narrow = await complete(PromptReference(name="wide"), CompletionArgument(name="pick", value="c1999"))
    assert narrow.values == [f"c1999{digit}" for digit in range(10)] and narrow.has_more is False


async def test_the_route_prompt_with_hundreds_of_commands_gets_at_most_the_cap(wide):
    answer = await completer(Docroot(wide), Contexts(wide))(PromptReference(name="guide"), CompletionArgument(name="command", value=":"))
    assert len(answer.values) == MAX_VALUES and all(value.startswith(":") for value in answer.values)
    assert answer.total == COMMANDS + 1 and answer.has_more


@pytest.mark.parametrize(
    ("ref", "name", "value"),
    [
        (PromptReference(name="wide"), "pick", "c" * (MAX_INPUT + 1)),
        (PromptReference(name="wide"), "p" * (MAX_INPUT + 1), ""),
        (PromptReference(name="w" * (MAX_INPUT + 1)), "pick", ""),
        (ResourceTemplateReference(uri="guide://_wide{?pick}" + "x" * MAX_INPUT), "pick", ""),
        (ResourceTemplateReference(uri="file:///etc/passwd{?pick}"), "pick", ""),
        (ResourceTemplateReference(uri="guide://$wide/../../etc{?pick}"), "pick", ""),
        (ResourceTemplateReference(uri="guide://_help{?pick}"), "pick", ""),
        (ResourceTemplateReference(uri="guide://lang/python{?pick}"), "pick", ""),
        (PromptReference(name="wide"), "nofield", "c"),
    ],
    ids=["huge-value", "huge-name", "huge-prompt", "huge-template", "other-scheme", "member", "help", "document", "no-field"],
)
async def test_hostile_input_gets_no_suggestions(wide, ref, name, value, caplog):
    answer = await completer(Docroot(wide), Contexts(wide))(ref, CompletionArgument(name=name, value=value))
    assert answer.values == [] and not answer.has_more
    assert "unexpected error" not in caplog.text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_over_the_wire_the_answers_stay_bounded_and_the_server_serves_on(wide, tmp_path, mode):
    server = create_server(wide, tmp_path, watch=False)
    async with Client(server, mode=mode) as client:
        many = await client.complete(PromptReference(name="wide"), {"name": "pick", "value": ""})
        huge = await client.complete(PromptReference(name="wide"), {"name": "pick", "value": "c" * 3_000_000})
        templated = await client.complete(ResourceTemplateReference(uri="guide://_wide{?pick}"), {"name": "pick", "value": "c0000"})
        text = (await client.read_resource("guide://_wide?pick=c00042"))[0].text
    assert len(many.values) == MAX_VALUES and many.total == len(CHOICES)
    assert huge.values == []
    assert templated.values == [f"c0000{digit}" for digit in range(10)]
    assert text.strip() == "WIDE c00042"
