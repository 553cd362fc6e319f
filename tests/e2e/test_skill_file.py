"""C3, SEP-2640: `skill://<name>/SKILL.md` begins with the listing's frontmatter, on every route and in both eras.

A client that cannot answer forms still gets a conformant `SKILL.md` when the
skill's forms cannot be settled: its body names what the skill needs and the
address to read with the values; `guide://$name` keeps the C7.6 failure.
"""

import pytest
import yaml
from e2e_support import read, read_error
from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension

from guide.server.app import create_server

NEEDY = """\
    ---
    name: needy
    description: Plan a release.
    license: MIT
    metadata: {owner: platform, tier: 2}
    includes: [note]
    requires-team: platform
    elicitation:
      plan:
        message: Which release?
        schema:
          type: object
          properties:
            version: {type: string, pattern: "[0-9]+[.][0-9]+"}
            channel: {type: string, enum: [stable, beta], default: stable}
          required: [version, channel]
    ---
    NEEDY version={{kwargs.version}} channel={{kwargs.channel}} note={{kwargs.note}}
    """
NOTE = """\
    ---
    elicitation:
      note:
        message: Any note?
        schema: {type: object, properties: {note: {type: string, default: none}}}
    ---
    """
LISTED = {"name": "needy", "description": "Plan a release.", "license": "MIT", "metadata": {"owner": "platform", "tier": 2}}


def split(text: str) -> tuple[dict, str]:
    """A `SKILL.md`'s frontmatter (parsed) and body, as a Skills client splits it."""
    assert text.startswith("---\n"), text
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


def needy_server(builder):
    builder.write("guide.yaml", "flags: {team: platform}\n")
    builder.write("_skills/needy/SKILL.md", NEEDY)
    builder.write("_partials/note.md", NOTE)
    return create_server(builder.root, project=builder.project, watch=False)


async def test_c3_a_skill_file_a_client_cannot_settle_says_what_it_needs(empty_docroot, connect, mode):
    server = needy_server(empty_docroot)
    async with connect(server) as client:
        text = await read(client, "skill://needy/SKILL.md")
        given = await read(client, "skill://needy/SKILL.md?channel=beta")
        entrypoint = await read_error(client, "guide://$needy")
        retried = await read(client, "guide://$needy?version=2.1")
    frontmatter, body = split(text)
    assert frontmatter == LISTED  # Guide's own keys (elicitation, includes, requires-*) are never served
    assert body.startswith("# needy: values needed\n")
    assert "- `version` (string, required; matching [0-9]+[.][0-9]+)" in body
    assert "guide://$needy?version=<string>\n" in body  # channel has a default, so it is not needed
    assert "Do not guess" in body and "   - `channel` = stable (string; one of: stable, beta)" in body  # the agent channel's questions: a default apart
    assert "guide://$needy?channel=beta&version=<string>\n" in split(given)[1]  # what was given is kept
    assert "supply the keywords: version (string, required; matching [0-9]+[.][0-9]+)" in entrypoint.error.message
    assert retried.strip() == "NEEDY version=2.1 channel=stable note=none"


async def test_c3_a_skill_file_read_with_answers_is_frontmatter_then_the_rendered_body(empty_docroot, connect, elicitor):
    server = needy_server(empty_docroot)
    elicitor.answer(version={"version": "3.0", "channel": "beta"})
    async with connect(server, elicitor) as client:
        text = await read(client, "skill://needy/SKILL.md")
        plain = await read(client, "guide://$needy?version=3.0&channel=beta")
    assert split(text) == (LISTED, "NEEDY version=3.0 channel=beta note=none\n")
    assert plain == "NEEDY version=3.0 channel=beta note=none\n"  # the guide:// address serves the body alone
    assert elicitor.keys == ["version"]  # the note form requires nothing, so it is never pending


async def test_c3_the_served_frontmatter_is_the_listed_one(empty_docroot, mode):
    if mode == "legacy":
        pytest.skip("skills/list exists only on 2026-07-28; the tests above check the served frontmatter in both eras")
    server = needy_server(empty_docroot)
    async with Client(server, mode="auto", extensions=[SkillsClientExtension()]) as client:
        (entry,) = await client.list_skills()
        text = (await client.read_resource(entry.uri))[0].text
    assert entry.frontmatter.root == LISTED == split(text)[0]
