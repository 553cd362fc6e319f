"""Issue 37, part 4: the MCP Inspector CLI 2.x (Node.js 22), an outside client, sees the titles, icons and audience that
frontmatter gives resources, templates, prompts and Skills entries, and still finds every skill conformant."""

import base64
import json
from pathlib import Path

import pytest
from e2e_docroot import write_file
from inspector_support import inspect, requires_inspector, verify_skills

pytestmark = [requires_inspector(), pytest.mark.slow]  # an outside client on Node.js 22: run with -m slow

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
DATA_URI = "data:image/png;base64," + base64.b64encode(PNG).decode()
REVIEW = """\
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
    """
TRIAGE = """\
    ---
    name: triage
    description: Triage a report.
    title: Triage a report
    icon: https://example.com/triage.svg
    audience: [assistant]
    ---
    TRIAGE
    """


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("labelled")
    write_file(root / "_commands" / "review.md", REVIEW)
    write_file(root / "_skills" / "triage" / "SKILL.md", TRIAGE)
    write_file(root / "lang" / "python.md", "---\ntitle: Python conventions\n---\nUse black.\n")
    (root / "assets").mkdir()
    (root / "assets" / "review.png").write_bytes(PNG)
    return root


def listed(mode: str, docroot: Path, project: Path, method: str) -> dict:
    done = inspect(mode, docroot, project, "--method", method)
    assert done.returncode == 0, f"{method}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def labels(item: dict) -> tuple:
    return item.get("title"), [(icon["src"], icon.get("mimeType")) for icon in item.get("icons", [])], item.get("annotations", {}).get("audience")


def test_the_inspector_sees_titles_icons_and_audience_in_each_listing(labelled, tmp_path, mode):
    resources = {item["uri"]: labels(item) for item in listed(mode, labelled, tmp_path, "resources/list")["resources"]}
    templates = {item["uriTemplate"]: labels(item) for item in listed(mode, labelled, tmp_path, "resources/templates/list")["resourceTemplates"]}
    prompts = {item["name"]: item for item in listed(mode, labelled, tmp_path, "prompts/list")["prompts"]}
    assert resources == {
        "guide://_review": ("Review a change", [(DATA_URI, "image/png")], ["user"]),
        "guide://$triage": ("Triage a report", [("https://example.com/triage.svg", "image/svg+xml")], ["assistant"]),
        "guide://lang/python": ("Python conventions", [], None),
    }
    assert templates == {"guide://_review{?mode}": ("Review a change", [(DATA_URI, "image/png")], ["user"])}
    assert labels(prompts["review"])[:2] == ("Review a change", [(DATA_URI, "image/png")])
    assert prompts["review"]["_meta"]["guide/annotations"] == {"audience": ["user"]}


def test_the_inspector_sees_a_skills_entrys_labels_and_finds_it_conformant(labelled, tmp_path, mode):
    if mode == "legacy":
        pytest.skip("skills/list exists only on 2026-07-28")
    (entry,) = listed(mode, labelled, tmp_path, "skills/list")["skills"]
    assert entry["_meta"] == {"guide/title": "Triage a report", "guide/icons": [{"src": "https://example.com/triage.svg", "mimeType": "image/svg+xml"}],
                              "guide/annotations": {"audience": ["assistant"]}}
    (report,) = verify_skills(labelled, tmp_path)
    assert report["ok"] and report["outcome"] == "verified", report
