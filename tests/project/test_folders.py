"""C10 (turn 4): which folder a read may name as its project, and the state files kept per project."""

import os
from pathlib import Path

import pytest

from guide.docroot.config import Config
from guide.docroot.folder import Docroot
from guide.docroot.memo import UNBUILT
from guide.errors import InputError
from guide.forms.declare import EMPTY
from guide.project.context import Contexts, ReadContext
from guide.project.folders import MAX_ROOTS, OFF, Projects
from guide.project.phase import MAX_PROJECTS, PhaseFiles
from guide.protocol import PROJECT

REFUSED = "is not a folder inside the projects this server serves"


@pytest.fixture
def tree(tmp_path) -> Path:
    """projects/{a, b, to-a -> a, out -> ../elsewhere, note.txt}, elsewhere/, and `linked` -> projects."""
    under = tmp_path / "projects"
    for folder in (under / "a", under / "b", tmp_path / "elsewhere"):
        folder.mkdir(parents=True)
    (under / "note.txt").write_text("x", encoding="utf-8")
    (under / "to-a").symlink_to(under / "a")
    (under / "out").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "linked").symlink_to(under)
    return tmp_path


def refusal(projects: Projects, text: str) -> str:
    with pytest.raises(InputError) as raised:
        projects.named((text,))
    return str(raised.value)


def test_a_folder_inside_is_its_real_path(tree):
    projects = Projects(tree / "projects")
    assert projects.named((str(tree / "projects" / "a"),)) == (tree / "projects" / "a").resolve()
    assert projects.named((str(tree / "projects" / "to-a") + "/",)) == (tree / "projects" / "a").resolve()
    assert projects.named((str(tree / "projects"),)) == (tree / "projects").resolve()  # the folder itself counts as inside


def test_the_folder_named_through_a_link_is_followed(tree):
    assert Projects(tree / "linked").named((str(tree / "projects" / "b"),)) == (tree / "projects" / "b").resolve()
    assert Projects(tree / "projects").named((str(tree / "linked" / "b"),)) == (tree / "projects" / "b").resolve()


LONG = ["projects/" + "n" * 5000, "projects/" + "/".join(["m" * 200] * 30)]
"""Names the file system refuses to look up (too long): refused as any other, never an unexpected error."""


@pytest.mark.parametrize("name", ["elsewhere", "projects/out", "projects/missing", "projects/note.txt", "projects/out/../projects/a", *LONG])
def test_what_is_not_a_folder_inside_is_refused_alike(tree, name):
    message = refusal(Projects(tree / "projects"), f"{tree}/{name}")
    if ".." in name:
        assert "has a . or .. segment" in message
        return
    assert REFUSED in message  # the same words whether the folder exists outside or not at all
    assert message.count(str(tree)) == 1  # only the text given is quoted: neither the folder nor what a link leads to
    assert len(message) < 500


@pytest.mark.parametrize(("text", "says"), [
    ("", "is empty"), ("projects/a", "is not an absolute path"), ("/a/./b", "has a . or .. segment"), ("/a/..", "has a . or .. segment"),
    ("/a%2F..%2Fb", "percent-encoded separator or dot"), ("/a%2e%2e/b", "percent-encoded separator or dot"), ("/a%5Cb", "percent-encoded"),
    ("/a%00", "percent-encoded"), ("/a\x00b", "holds a control character"), ("/a\nb", "holds a control character"),
])
def test_shapes_refused_before_the_file_system_is_asked(tree, text, says):
    message = refusal(Projects(tree / "projects"), text)
    assert says in message and "\n" not in message
    assert message.endswith("accepted: project=<absolute path of a project folder inside the server's --projects-under folder>")


def test_without_the_setting_nothing_is_named(tree):
    assert refusal(Projects(None), str(tree / "projects" / "a")) == OFF
    assert Projects(None).rooted([f"file://{tree}/projects/a"]) is None


def test_given_twice_is_refused(tree):
    with pytest.raises(InputError, match="given 2 times; give it once"):
        Projects(tree / "projects").named((str(tree / "projects" / "a"), str(tree / "projects" / "b")))


def test_roots_name_the_one_folder_inside(tree):
    projects, a = Projects(tree / "projects"), (tree / "projects" / "a").resolve()
    assert projects.rooted([f"file://{tree}/projects/a"]) == a
    assert projects.rooted([f"file://{tree}/elsewhere", f"file://localhost{tree}/projects/a/"]) == a
    assert projects.rooted([f"file://{tree}/projects/a", f"file://{tree}/projects/to-a"]) == a  # one folder, named twice
    assert projects.rooted([f"file://{tree}/projects/a", f"file://{tree}/projects/b"]) is None  # two: neither
    assert projects.rooted([f"file://{tree}/projects/out", f"file://{tree}/elsewhere"]) is None
    assert projects.rooted([f"file://host{tree}/projects/a", f"https://x{tree}/projects/a", f"file://{tree}/projects/a/../b"]) is None
    assert projects.rooted([f"file://{quoted(tree)}/projects/%61"]) == a  # a root's path is percent-decoded once
    assert projects.rooted([f"file://{tree}/{name}" for name in LONG]) is None
    assert projects.rooted([f"file://{tree}/elsewhere"] * MAX_ROOTS + [f"file://{tree}/projects/a"]) is None  # past the roots looked at


def quoted(path: Path) -> str:
    return str(path).replace("-", "%2D")


def test_the_state_files_kept_are_bounded(tmp_path):
    made = []
    files = PhaseFiles(lambda project: made.append(project) or project / ".guide.yaml")
    first = files.of(tmp_path / "p0")
    for number in range(1, MAX_PROJECTS + 20):
        files.of(tmp_path / f"p{number}")
        assert files.of(tmp_path / "p0") is first  # the one read on every round stays
    assert len(files._files) == MAX_PROJECTS
    assert files.of(tmp_path / "p1").path == tmp_path / "p1" / ".guide.yaml" and made.count(tmp_path / "p1") == 2  # gone, then made again


def test_the_contexts_answer_the_phase_of_each_project(tmp_path):
    docroot_folder, own, other = tmp_path / "docroot", tmp_path / "own", tmp_path / "other"
    for folder, phase in ((docroot_folder, None), (own, "planning"), (other, "review")):
        folder.mkdir()
        if phase:
            (folder / ".guide.yaml").write_text(f"phase: {phase}\n", encoding="utf-8")
    (docroot_folder / "guide.yaml").write_text("workflow:\n  phases: [planning, review]\n", encoding="utf-8")
    contexts = Contexts(own, Projects(tmp_path))
    built = Docroot(docroot_folder).build()
    assert isinstance(built.snapshot.config, Config)
    assert (contexts.decide(built, EMPTY, {}).phase, contexts.decide(built, EMPTY, {PROJECT: (str(other),)}).phase) == ("planning", "review")
    assert contexts.known(built, EMPTY, {}) == ReadContext(own, "", "planning")  # the own project's state file was read: known on the loop
    assert contexts.known(built, EMPTY, {PROJECT: (str(other),)}) is UNBUILT  # a named project is checked in a worker
    assert contexts.decide(built, EMPTY, {PROJECT: (str(other),)}) == ReadContext(other, str(other), "review")
    os.utime(own / ".guide.yaml", ns=(1, 1))
    assert contexts.known(built, EMPTY, {}) is UNBUILT  # changed since: known only once read again


def test_a_read_that_never_shows_the_phase_is_known_without_its_state_file(tmp_path):
    docroot_folder, own = tmp_path / "docroot", tmp_path / "own"
    for folder in (docroot_folder, own):
        folder.mkdir()
    (own / ".guide.yaml").write_text("phase: planning\n", encoding="utf-8")
    (docroot_folder / "guide.yaml").write_text("workflow:\n  phases: [planning, review]\n", encoding="utf-8")
    contexts, built = Contexts(own), Docroot(docroot_folder).build()
    assert contexts.known(built, EMPTY, {}) is UNBUILT  # a read that may show the phase: its state file is read first, in a worker
    assert contexts.known(built, EMPTY, {}, phased=False) == ReadContext(own, "", None)  # one that never does: known on the loop
    assert contexts.decide(built, EMPTY, {}, phased=False) == ReadContext(own, "", None)
