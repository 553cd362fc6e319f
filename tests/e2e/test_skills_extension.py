"""Skills through the Skills extension (SEP-2640): skills/list, skills/get and skill:// files behave as guide://$name."""

import hashlib

import pytest
from e2e_support import eventually
from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension

from guide.server.app import create_server

BROKEN = "---\nname: broken\ndescription: Has a mistake.\nelicitation:\n  f: {message: '', schema: {type: object, properties: {x: {type: string}}}}\n---\nB\n"
NO_DESCRIPTION = "---\nname: quiet\n---\nQ\n"
HEAD = "---\nname: triage\ndescription: Triage an incoming report.\n---\n"


@pytest.fixture(autouse=True)
def modern_only(mode):
    if mode != "2026-07-28":
        pytest.skip("the Skills extension exists only on 2026-07-28")


def skills_client(server, elicitor=None) -> Client:
    # "auto" lets the client discover the extension (a pinned 2026-07-28 client skips server/discover).
    handler = elicitor.handle if elicitor else None
    return Client(server, mode="auto", extensions=[SkillsClientExtension()], elicitation_handler=handler)


async def test_lists_the_skills_and_reads_one_with_its_form_asked(docroot, elicitor):
    server = create_server(docroot.root, project=docroot.project, watch=False)
    elicitor.answer(kind={"kind": "feature"})
    async with skills_client(server, elicitor) as client:
        listed = await client.list_skills()
        entry = await client.get_skill("skill://triage/SKILL.md")
        text = (await client.read_resource(entry.uri))[0].text
        member = (await client.read_resource("skill://triage/notes.md"))[0].text
        same = (await client.read_resource("skill://triage/SKILL.md?kind=bug&ticket=GD-1"))[0].text
    assert [skill.uri for skill in listed] == ["skill://triage/SKILL.md"]
    assert entry.frontmatter.root == {"name": "triage", "description": "Triage an incoming report."}
    assert entry.resources == "dynamic"
    assert text == f"{HEAD}TRIAGE skill=triage kind=feature ticket= urgent=false\n"  # C3: the listed frontmatter, then the body
    assert elicitor.keys == ["kind"]
    assert member == "TRIAGE NOTES {{kwargs.kind}} stays raw\n"  # a member never asks and is served as written
    assert same == f"{HEAD}TRIAGE skill=triage kind=bug ticket=GD-1 urgent=false\n"


async def test_a_skill_with_an_authoring_error_is_left_out_and_the_others_listed(docroot, caplog):
    docroot.write("_skills/broken/SKILL.md", BROKEN)
    docroot.write("_skills/quiet/SKILL.md", NO_DESCRIPTION)
    server = create_server(docroot.root, project=docroot.project, watch=False)
    async with skills_client(server) as client:
        listed = [skill.uri for skill in await client.list_skills()]
    assert listed == ["skill://triage/SKILL.md"]
    assert "skill broken has authoring errors and is left out of skills/list" in caplog.text
    assert "skill quiet is left out of skills/list" in caplog.text


PLAIN = "---\nname: plain\ndescription: Always the same.\n---\n# {{skill.name}}\nRead notes/one.md.\n"


async def test_a_skill_without_forms_lists_the_digest_of_each_file_a_read_serves_and_follows_edits(docroot):
    docroot.write("_skills/plain/SKILL.md", PLAIN)
    docroot.write("_skills/plain/notes/one.md", "---\ntitle: kept\n---\nFirst.\n")
    server = create_server(docroot.root, project=docroot.project)
    async with skills_client(server) as client:
        entry = await client.get_skill("skill://plain/SKILL.md")
        before = await _checked(client, entry)
        docroot.write("_skills/plain/notes/one.md", "Second, longer.\n")

        async def changed():
            return (await client.get_skill("skill://plain/SKILL.md")).resources != entry.resources

        await eventually(changed)
        after = await _checked(client, await client.get_skill("skill://plain/SKILL.md"))
        triage = await client.get_skill("skill://triage/SKILL.md")
    assert set(before) == {"skill://plain/SKILL.md", "skill://plain/notes/one.md"}
    assert before["skill://plain/notes/one.md"] == "---\ntitle: kept\n---\nFirst.\n"  # a member is served as written
    assert after["skill://plain/notes/one.md"] == "Second, longer.\n"
    assert triage.resources == "dynamic"  # it asks a form


async def _checked(client, entry) -> dict[str, str]:
    """The text of each file of a listed manifest, each checked against its digest and size."""
    texts = {}
    for resource in entry.resources:
        data = (await client.read_resource(resource.uri))[0].text.encode()
        assert resource.digest == "sha256:" + hashlib.sha256(data).hexdigest() and resource.size == len(data), resource.uri
        texts[resource.uri] = data.decode()
    return texts
