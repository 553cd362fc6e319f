"""Issue 37, part 4: `title:`, `icon:` and `audience:` reach clients' lists as MCP's title, icons and annotations (resources,
templates, prompts) and in a Skills entry's `_meta`, through a real client in both eras; an edit shows in the next listing."""

import base64

import pytest
from e2e_support import eventually
from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension

from guide.server.app import create_server

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
DATA_URI = "data:image/png;base64," + base64.b64encode(PNG).decode()
FILES = {
    "_commands/review.md": """\
        ---
        description: Review a change.
        title: Review a change
        icon: assets/review.png
        audience: user
        elicitation:
          target:
            message: What to review?
            schema: {type: object, properties: {mode: {type: string, enum: [branch, staged]}}}
        ---
        REVIEW {{kwargs.mode}}
        """,
    "_skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage a report.\ntitle: Triage a report\nicon: https://example.com/triage.svg\n"
    "audience: [assistant]\n---\nTRIAGE\n",
    "lang/python.md": "---\ntitle: Python conventions\naudience: assistant\n---\nUse black.\n",
    "plain.md": "Plain.\n",
}


@pytest.fixture
def labelled(empty_docroot):
    for rel, text in FILES.items():
        empty_docroot.write(rel, text)
    (empty_docroot.root / "assets").mkdir()
    (empty_docroot.root / "assets" / "review.png").write_bytes(PNG)
    return empty_docroot


def shown(item) -> tuple:
    icons = [(icon.src, icon.mime_type) for icon in item.icons or []]
    audience = getattr(item, "annotations", None) and item.annotations.audience
    return item.title, icons, audience


async def test_resources_templates_and_prompts_carry_title_icons_and_audience(labelled, connect):
    server = create_server(labelled.root, labelled.project, watch=False)
    async with connect(server) as client:
        resources = {str(resource.uri): shown(resource) for resource in await client.list_resources()}
        templates = {template.uri_template: shown(template) for template in await client.list_resource_templates()}
        prompts = {prompt.name: prompt for prompt in await client.list_prompts()}
    assert resources == {
        "guide://_review": ("Review a change", [(DATA_URI, "image/png")], ["user"]),
        "guide://$triage": ("Triage a report", [("https://example.com/triage.svg", "image/svg+xml")], ["assistant"]),
        "guide://lang/python": ("Python conventions", [], ["assistant"]),
        "guide://plain": (None, [], None),
    }
    assert templates == {"guide://_review{?mode}": ("Review a change", [(DATA_URI, "image/png")], ["user"])}
    review = prompts["review"]
    assert (review.title, [icon.src for icon in review.icons]) == ("Review a change", [DATA_URI])
    assert review.meta["guide/annotations"] == {"audience": ["user"]}  # MCP gives prompts no annotations
    assert prompts["guide"].title is None


async def test_a_skills_entry_carries_them_in_its_meta_and_its_frontmatter_stays_the_served_one(labelled, mode):
    if mode != "2026-07-28":
        pytest.skip("the Skills extension exists only on 2026-07-28")
    server = create_server(labelled.root, labelled.project, watch=False)
    async with Client(server, mode="auto", extensions=[SkillsClientExtension()]) as client:
        (entry,) = await client.list_skills()
        served = (await client.read_resource(entry.uri))[0].text
    assert entry.meta == {"guide/title": "Triage a report", "guide/icons": [{"src": "https://example.com/triage.svg", "mimeType": "image/svg+xml"}],
                          "guide/annotations": {"audience": ["assistant"]}}
    assert entry.frontmatter.root == {"name": "triage", "description": "Triage a report."}
    assert served.startswith("---\nname: triage\ndescription: Triage a report.\n---\n")


async def test_an_edited_title_shows_in_the_next_listing(labelled, connect):
    server = create_server(labelled.root, labelled.project)
    async with connect(server) as client:
        labelled.write("lang/python.md", "---\ntitle: Python, our way\n---\nUse black.\n")

        async def retitled():
            listed = {str(resource.uri): resource for resource in await client.list_resources()}
            return listed["guide://lang/python"].title == "Python, our way" and listed["guide://lang/python"].annotations is None

        await eventually(retitled)
