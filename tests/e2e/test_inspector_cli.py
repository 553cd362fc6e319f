"""Issue 20: the MCP Inspector CLI 2.x (Node.js 22) finds every skill conformant and reads each kind of address.

Four docroots: the bundled example, the one `guide init` writes, one with a
skill whose required field has no default (a client that cannot answer forms,
as the Inspector CLI is, then gets the `SKILL.md` that says what it needs), and
one whose skills have no forms (issue 29: listed with digests, so `--verify`
checks every file and `--require-digests` passes).
"""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from e2e_docroot import write_file
from inspector_support import read, requires_inspector, verify_skills

from guide.examples import DOCROOT as EXAMPLE

pytestmark = [requires_inspector(), pytest.mark.slow]  # an outside client on Node.js 22: run by .ci/run with -m slow

NEEDY = """\
    ---
    name: release-notes
    description: Write the release notes for one version.
    license: MIT
    metadata: {team: platform}
    elicitation:
      version:
        message: Which version?
        schema:
          type: object
          properties:
            version: {type: string, pattern: "[0-9]+[.][0-9]+"}
            audience: {type: string, enum: [users, operators], default: users}
          required: [version, audience]
    ---
    Notes for {{kwargs.version}}, written for {{kwargs.audience}}.
    """


PLAIN = """\
    ---
    name: house-style
    description: Write in the house style.
    ---
    # House style ({{skill.name}})

    Read `words/avoid.md` and `examples.txt` before writing.
    """
BY_PHASE = """\
    ---
    name: by-phase
    description: What to do in the current workflow phase.
    ---
    {{#workflow.phase}}We are in {{workflow.phase}}.{{/workflow.phase}}{{^workflow.phase}}No phase yet.{{/workflow.phase}}
    """


@pytest.fixture(scope="module")
def docroots(tmp_path_factory) -> dict[str, Path]:
    """The three docroots, by name."""
    base = tmp_path_factory.mktemp("inspector")
    subprocess.run([sys.executable, "-m", "guide", "init", str(base / "init")], check=True, capture_output=True, timeout=60)
    write_file(base / "needy" / "_skills" / "release-notes" / "SKILL.md", NEEDY)
    write_file(base / "needy" / "_skills" / "release-notes" / "style.md", "Short sentences.\n")
    write_file(base / "plain" / "_skills" / "house-style" / "SKILL.md", PLAIN)
    write_file(base / "plain" / "_skills" / "house-style" / "words" / "avoid.md", "---\ntitle: Words to avoid\n---\nUtilise, leverage, synergy.\n")
    write_file(base / "plain" / "_skills" / "house-style" / "examples.txt", "Før: we leverage. Efter: we use.\n")
    write_file(base / "mixed" / "_skills" / "house-style" / "SKILL.md", PLAIN)
    write_file(base / "mixed" / "_skills" / "by-phase" / "SKILL.md", BY_PHASE)
    write_file(base / "mixed" / "_skills" / "release-notes" / "SKILL.md", NEEDY)
    return {"example": EXAMPLE, "init": base / "init", "needy": base / "needy", "plain": base / "plain", "mixed": base / "mixed"}


def skill_file(text: str) -> tuple[dict, str]:
    """A served `SKILL.md`: its frontmatter (parsed) and its body."""
    assert text.startswith("---\n"), text[:200]
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


@pytest.mark.parametrize("name", ["example", "init", "needy", "plain", "mixed"])
def test_skills_list_verify_finds_every_skill_conformant(docroots, tmp_path, mode, name):
    if mode == "legacy":
        pytest.skip("skills/list exists only on 2026-07-28")
    reports = verify_skills(docroots[name], tmp_path)
    assert reports and all(report["ok"] for report in reports), reports
    assert all(issue["severity"] != "error" for report in reports for issue in report["conformance"] + report["frontmatter"])


def test_skills_without_forms_are_verified_file_by_file_and_pass_require_digests(docroots, tmp_path, mode):
    if mode == "legacy":
        pytest.skip("skills/list exists only on 2026-07-28")
    (report,) = verify_skills(docroots["plain"], tmp_path, "--require-digests")
    assert report["outcome"] == "verified", report
    files = {file["uri"]: file["status"] for file in report["files"]}
    assert files == {f"skill://house-style/{path}": "verified" for path in ("SKILL.md", "examples.txt", "words/avoid.md")}, report


def test_only_skills_whose_text_depends_on_answers_or_the_phase_are_dynamic(docroots, tmp_path, mode):
    if mode == "legacy":
        pytest.skip("skills/list exists only on 2026-07-28")
    outcomes = {report["name"]: report["outcome"] for report in verify_skills(docroots["mixed"], tmp_path)}
    assert outcomes == {"house-style": "verified", "by-phase": "unverifiable", "release-notes": "unverifiable"}
    example = {report["name"]: report["outcome"] for report in verify_skills(docroots["example"], tmp_path)}
    assert example == {"workflow-review": "unverifiable"}  # its SKILL.md asks forms
    verify_skills(docroots["mixed"], tmp_path, "--require-digests", exit_code=9)  # the Inspector's code for a skill without digests


READS = {
    "example": [
        ("guide://_help", "# Guide help"),
        ("guide://_review?mode=branch&reference=feature%2Fsearch&depth=thorough", "Compare `feature/search` with the main branch"),
        ("guide://$workflow-review?mode=phase", "# Workflow review (workflow-review)"),
        ("skill://workflow-review/checklist.md", None),
        ("guide://lang/python", "# Python conventions"),
    ],
    "init": [
        ("guide://_help/change", "# Command `change`"),
        ("guide://_change?kind=bug&issue=42", "# Fix issue #42"),
        ("guide://$handover", "# Handover"),
        ("guide://$handover/template.md", None),
        ("guide://conventions", None),
    ],
    "needy": [
        ("guide://$release-notes?version=2.1", "Notes for 2.1, written for users."),
        ("skill://release-notes/style.md", "Short sentences."),
    ],
}


@pytest.mark.parametrize(("name", "uri", "expected"), [(name, uri, text) for name, reads in READS.items() for uri, text in reads])
def test_each_kind_of_address_reads(docroots, tmp_path, mode, name, uri, expected):
    text = read(mode, docroots[name], tmp_path, uri)
    assert text.strip() and (expected is None or expected in text), text[:300]


@pytest.mark.parametrize(("name", "skill", "needs"), [("example", "workflow-review", "mode"), ("needy", "release-notes", "version"), ("init", "handover", None)])
def test_a_skill_file_is_conformant_when_read_without_forms(docroots, tmp_path, mode, name, skill, needs):
    frontmatter, body = skill_file(read(mode, docroots[name], tmp_path, f"skill://{skill}/SKILL.md"))
    assert frontmatter["name"] == skill and frontmatter["description"]
    assert not {"elicitation", "includes"} & set(frontmatter)
    if needs is None:  # every form is settled by defaults: the rendered body
        assert body.startswith("# Handover")
    else:
        assert body.startswith(f"# {skill}: values needed") and f"guide://${skill}?{needs}=<" in body
