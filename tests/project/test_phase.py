"""The workflow phase of a read's project (C10): the state file named in guide.yaml, read from the project, again when it changes."""

import textwrap

from guide.docroot.folder import Docroot
from guide.forms.declare import EMPTY
from guide.project.context import Contexts


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def docroot_of(root, files, project):
    for rel, text in files.items():
        write(root, rel, text)
    return Docroot(root), Contexts(project)


def test_c10_guide_yaml_flags_phases_and_state_file(tmp_path):
    project = tmp_path / "project"
    write(project, "state/phase.yaml", "phase: planning\n")
    config = "flags: {workflow: true, team: data}\nworkflow:\n  phases: [discussion, planning, review]\n  state-file: state/phase.yaml\n"
    docroot, contexts = docroot_of(tmp_path / "root", {"guide.yaml": config}, project=project)
    snap = docroot.build()
    assert snap.config.flags == {"workflow": True, "team": "data"}
    assert snap.config.phases == ("discussion", "planning", "review")
    assert contexts.decide(docroot.build(), EMPTY, {}).phase == "planning"
    write(project, "state/phase.yaml", "phase: review\n")
    assert contexts.decide(docroot.build(), EMPTY, {}).phase == "review"


def test_c10_defaults_without_guide_yaml(tmp_path):
    project = tmp_path / "project"
    write(project, ".guide.yaml", "phase: check\n")
    docroot, contexts = docroot_of(tmp_path / "root", {"index.md": "d"}, project=project)
    snap = docroot.build()
    assert (snap.config.flags, snap.config.phases) == ({}, ())
    assert contexts.decide(docroot.build(), EMPTY, {}).phase is None  # no workflow enabled: the state file is not consulted


def test_c10_default_state_file_is_read_when_phases_are_enabled(tmp_path):
    project = tmp_path / "project"
    write(project, ".guide.yaml", "phase: check\n")
    docroot, contexts = docroot_of(tmp_path / "root", {"guide.yaml": "workflow: {phases: [plan, check]}\n"}, project=project)
    assert contexts.decide(docroot.build(), EMPTY, {}).phase == "check"


def test_c10_no_state_file_means_no_active_phase(tmp_path):
    docroot, contexts = docroot_of(tmp_path, {"guide.yaml": "workflow: {phases: [a]}\n"}, project=tmp_path)
    assert contexts.decide(docroot.build(), EMPTY, {}).phase is None
