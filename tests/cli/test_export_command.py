"""`guide export-skills`: skills (and Claude Code commands) written into an agent's folders, read back by real consumers.

The consumers are the Agent Skills reference validator (`skills-ref`, agentskills.io's
own) and FastMCP's skills loader (`SkillsDirectoryProvider`); the questions are the
agent channel's own (C7.12 c), read from the failure a client without forms gets.
"""

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import skills_ref
from fastmcp.skills.provider import SkillsDirectoryProvider
from support.exported import FILES, export_docroot

from guide.cli import main
from guide.cli.export.folders import AGENTS, MANIFEST
from guide.docroot.folder import Docroot
from guide.errors import MissingInputError
from guide.project.context import Contexts
from guide.routes.lookup import AddressRead
from guide.server.channels.agent import Agent
from guide.server.service import Service, Turn


@pytest.fixture
def docroot(tmp_path):
    return export_docroot(tmp_path / "docroot")


def _export(capsys, docroot, project, *arguments, agent="claude"):
    project.mkdir(exist_ok=True)
    status = main(["export-skills", "--agent", agent, str(project), *map(str, arguments), "--docroot", str(docroot)])
    out, err = capsys.readouterr()
    return status, out, err


def _tree(folder):
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_every_exported_skill_passes_the_reference_validator_and_fastmcp_loads_it_as_written(capsys, docroot, tmp_path, agent):
    status, out, err = _export(capsys, docroot, tmp_path / "project", agent=agent)
    assert status == 0, err
    skills = tmp_path / "project" / AGENTS[agent].skills
    assert sorted(path.name for path in skills.iterdir() if path.is_dir()) == ["hello", "triage"]
    for folder in skills.iterdir():
        if folder.is_dir():
            assert skills_ref.validate(folder) == [], folder
    loaded = asyncio.run(SkillsDirectoryProvider(skills).load_skills())
    assert {path: sorted(skill.files) for path, skill in loaded.items()} == {"hello": ["SKILL.md"], "triage": ["SKILL.md", "notes.md"]}
    assert loaded["triage"].files["notes.md"] == FILES["_skills/triage/notes.md"].encode()  # a member as its address serves it
    assert loaded["triage"].files["SKILL.md"] == (skills / "triage" / "SKILL.md").read_bytes()
    head = (skills / "triage" / "SKILL.md").read_text().split("---\n")[1]
    assert head == "name: triage\ndescription: Triage an incoming issue and say who takes it.\nlicense: MIT\nmetadata:\n  owner: platform\n"


async def _agent_questions(docroot):
    """The agent channel's failure for the skill: the questions a client without forms is told to ask."""
    service = Service(Docroot(docroot), contexts=Contexts(docroot))
    found = await service.find(AddressRead("guide://$triage"))
    with pytest.raises(MissingInputError) as failed:
        await service.call(AddressRead("guide://$triage"), found, Turn(Agent()))
    return failed.value.data["questions"]


def test_a_skill_with_forms_asks_every_question_of_the_agent_channel_first_and_leaves_no_mustache(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    text = (tmp_path / ".claude/skills/triage/SKILL.md").read_text()
    ask, instructions = text.split("## Instructions")
    questions = asyncio.run(_agent_questions(docroot))
    assert [question["form"] for question in questions] == ["kind", "issue", "labels", "depth"]
    for question in questions:
        assert question["message"] in ask
        for need in question["fields"] + question["defaults"]:
            assert f"`{need['keyword']}`" in ask
            for title in need["titles"] or ():
                assert title in ask
    assert "Only if kind is bug: Which issue number?" in ask and "Only if kind is feature: Which labels apply?" in ask
    assert "`urgent` = false" in ask and "`depth` = quick" in ask
    assert "{{" not in text and "<%" not in text
    assert "Guide MCP server" in text and "`guide://$triage`" in text


def test_a_body_that_branches_on_an_unanswered_value_keeps_every_branch_under_its_condition(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    body = (tmp_path / ".claude/skills/triage/SKILL.md").read_text().split("## Instructions")[1]
    assert "# Triage (triage): <kind>" in body  # a known value renders; an open one is its name
    assert re.search(r"\*\*If `issue` is given and not 0:\*\*\nOpen issue #<issue> and read it to the end\.\n\*\*\(end: if `issue` is given and not 0\)\*\*", body)
    assert "**If `issue` is 0 or not given:**\nAsk for the issue's text first." in body
    assert "Priority: [if `urgent` is true: today][if `urgent` is false: this week]." in body
    assert "**For each value of `labels` (each is <labels> below):**\n- label <labels>\n" in body
    assert "[if `urgent` is true: Page the on-call person.]" in body  # under other delimiters too
    assert "**If the person leaves “How deep should triage go?” to its defaults:**\nNobody chose a depth: keep it short." in body  # in a partial
    assert "Depth: <depth>." in body
    assert "Check the rules in `notes.md` before you assign it." in body  # the member, where the agent finds it


def test_values_given_render_in_and_leave_nothing_to_ask(capsys, docroot, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"kind": {"kind": "bug", "urgent": True}, "issue": {"issue": 42}, "depth": "cancel"}))
    status, out, err = _export(capsys, docroot, tmp_path, "guide://$triage", "--answers", answers)
    assert status == 0, err
    text = (tmp_path / ".claude/skills/triage/SKILL.md").read_text()
    assert "Ask first" not in text and "<" not in text.split("---\n", 2)[2].split("Exported by Guide")[0]
    assert "Open issue #42" in text and "Priority: today." in text and "Nobody chose a depth" in text
    status, out, err = _export(capsys, docroot, tmp_path, "guide://$triage?kind=feature", "--set", "labels=ui", "--set", "labels=api")
    assert status == 0, err
    text = (tmp_path / ".claude/skills/triage/SKILL.md").read_text()
    assert "- label ui\n- label api\n" in text and "Ask for the issue's text first." in text
    assert "Nobody chose a depth" in text and "Ask first" not in text  # as for the agent channel, a default settles what is left (C7.6)
    manifest = json.loads((tmp_path / ".claude/skills" / MANIFEST).read_text())
    assert [entry["address"] for entry in manifest["entries"]] == ["guide://$triage?kind=feature&labels=ui&labels=api"]
    assert manifest["entries"][0]["asks"] == []


def test_a_command_goes_to_claude_codes_commands_folder_with_its_arguments_kept(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    text = (tmp_path / ".claude/commands/ship.md").read_text()
    assert text.startswith("---\ndescription: Ship a release.\nargument-hint: '[version]'\n---\n")
    assert "$ARGUMENTS" in text and "in the order `version`" in text and "Ship <version> and tell the team." in text
    status, out, err = _export(capsys, docroot, tmp_path / "other", "guide://_ship", agent="codex")
    assert status == 1 and "codex has no folder for commands" in err and not (tmp_path / "other/.agents").exists()


def test_update_after_an_edit_rewrites_exactly_the_edited_skill(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    before = _tree(tmp_path / ".claude")
    (docroot / "_skills/hello/SKILL.md").write_text("---\nname: hello\ndescription: Say hello to the team.\n---\nSay hello, warmly.\n")
    status, out, err = _export(capsys, docroot, tmp_path, "--update")
    assert status == 0, err
    after = _tree(tmp_path / ".claude")
    changed = sorted(path for path in after if after[path] != before.get(path))
    assert changed == ["skills/.guide-export.json", "skills/hello/SKILL.md"]
    assert out.splitlines()[0] == "wrote .claude/skills/hello/SKILL.md"


def test_update_removes_the_files_of_a_skill_gone_from_the_docroot(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    (docroot / "_skills/hello/SKILL.md").unlink()
    status, out, err = _export(capsys, docroot, tmp_path, "--update")
    assert status == 0, err
    assert not (tmp_path / ".claude/skills/hello").exists() and (tmp_path / ".claude/skills/triage/SKILL.md").exists()
    assert "removed .claude/skills/hello/SKILL.md (no longer exported)" in out


def test_a_file_guide_did_not_write_is_never_overwritten_and_nothing_is_written(capsys, docroot, tmp_path):
    mine = tmp_path / ".claude/skills/hello/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: hello\ndescription: my own\n---\nMine.\n")
    status, out, err = _export(capsys, docroot, tmp_path)
    assert status == 1
    assert f"{mine} was not written by guide export-skills: not overwritten" in err
    assert mine.read_text().endswith("Mine.\n") and _tree(tmp_path / ".claude") == {"skills/hello/SKILL.md": mine.read_bytes()}


def test_a_symlink_inside_the_exported_folders_is_never_written_through(capsys, docroot, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / ".claude/skills").mkdir(parents=True)
    (tmp_path / ".claude/skills/hello").symlink_to(elsewhere)
    status, out, err = _export(capsys, docroot, tmp_path)
    assert status == 1 and f"{tmp_path / '.claude/skills/hello'} is a symlink: guide export-skills does not write through it" in err
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / ".claude/skills/triage").exists()


def test_a_file_edited_since_it_was_exported_is_not_overwritten_by_update(capsys, docroot, tmp_path):
    assert _export(capsys, docroot, tmp_path)[0] == 0
    edited = tmp_path / ".claude/skills/hello/SKILL.md"
    edited.write_text(edited.read_text() + "My note.\n")
    (docroot / "_skills/hello/SKILL.md").write_text("---\nname: hello\ndescription: Say hello to the team.\n---\nSay hello, warmly.\n")
    before = _tree(tmp_path / ".claude")
    status, out, err = _export(capsys, docroot, tmp_path, "--update")
    assert status == 1 and f"{edited} was changed since guide export-skills wrote it" in err
    assert _tree(tmp_path / ".claude") == before


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["guide://$triage", "guide://$hello", "--set", "kind=bug"], "name exactly one ADDRESS"),
        (["--update"], "this folder has no manifest"),
        (["guide://$triag"], "no skill triag"),
        (["guide://$triage?kind=bugs"], "invalid keyword kind"),
        (["guide://_ship/1.0"], "guide://_ship/1.0: invalid keyword version"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(capsys, docroot, tmp_path, arguments, says):
    status, out, err = _export(capsys, docroot, tmp_path, *arguments)
    assert status == 1 and says in err, err
    assert all(line.startswith("guide export-skills: ") for line in err.splitlines())
    assert not (tmp_path / ".claude").exists()


def test_a_manifest_that_is_not_guides_is_refused(capsys, docroot, tmp_path):
    manifest = tmp_path / ".claude/skills" / MANIFEST
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"entries": []}')
    status, out, err = _export(capsys, docroot, tmp_path)
    assert status == 1 and "is not a manifest guide export-skills wrote" in err and len(err.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["claude", "agents"])
def test_the_guide_program_exports_the_bundled_example_and_the_validators_command_line_accepts_each_skill(tmp_path, agent):
    """The installed programs, as a person runs them: `guide export-skills`, then `agentskills validate` on each folder."""
    bin_folder = Path(sys.executable).parent
    done = subprocess.run([str(bin_folder / "guide"), "export-skills", "--agent", agent, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    skills = tmp_path / AGENTS[agent].skills
    folders = [folder for folder in skills.iterdir() if folder.is_dir()]
    assert folders
    for folder in folders:
        checked = subprocess.run([str(bin_folder / "agentskills"), "validate", str(folder)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0 and "Valid skill" in checked.stdout, checked.stdout + checked.stderr
        assert "{{" not in (folder / "SKILL.md").read_text()
    if agent == "claude":
        assert all("{{" not in path.read_text() for path in (tmp_path / ".claude/commands").rglob("*.md"))
