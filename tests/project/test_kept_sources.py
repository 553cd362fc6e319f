"""C5 sources kept while unchanged: a git or files: source is read once and read again only when what it read changed ("as they are then")."""

import os
import time
from pathlib import Path

import pytest
from support.gitrepo import counting_git, git, make_repo, path_with

from guide.forms.sources import FILES, GIT_BRANCHES, GIT_TAGS, Source, Unreadable
from guide.project import sources, stamps
from guide.project.kept import KeptReads
from guide.project.sources import read_source

SETTLED = 0.05
"""Seconds a stamp must be old for a read to be kept, in these tests (the server's is two seconds)."""


def settle() -> None:
    """Let every stamp made so far age past `SETTLED` (a stamp is never newer than the moment it was made)."""
    time.sleep(SETTLED * 1.2)


@pytest.fixture
def git_runs(tmp_path, monkeypatch):
    """How many git processes have run so far (a counting git is first on PATH); stamps settle after `SETTLED`."""
    log = tmp_path / "git-runs"
    monkeypatch.setenv("PATH", path_with(counting_git(tmp_path / "bin", log)))
    monkeypatch.setattr(stamps, "SETTLED_NS", int(SETTLED * 1e9))
    return lambda: len(log.read_text().splitlines()) if log.exists() else 0


@pytest.fixture
def walks(monkeypatch):
    """How many times a files: glob has walked the project so far; stamps settle after `SETTLED`."""
    count = [0]
    walk = sources._files

    def counted(*args):
        count[0] += 1
        return walk(*args)

    monkeypatch.setattr(sources, "_files", counted)
    monkeypatch.setattr(stamps, "SETTLED_NS", int(SETTLED * 1e9))
    return lambda: count[0]


def reader(project: Path, runs, kept: KeptReads):
    """Read a source once its stamps settled: what it offers, and how many git runs (or walks) that read took."""

    def read(source: Source, *, wanted: tuple[str, ...] = ()) -> tuple[object, int]:
        settle()
        before = runs()
        found = read_source(source, project, wanted, kept=kept)
        return found, runs() - before

    return read


def test_c5_a_kept_git_source_starts_no_git_until_its_refs_change_and_sees_each_change(tmp_path, git_runs):
    repo = make_repo(tmp_path / "repo", branches=["b"], tags=["v1", "v2"])
    read = reader(repo, git_runs, KeptReads())
    branches, tags = Source(GIT_BRANCHES), Source(GIT_TAGS)
    assert read(branches) == (("b", "main"), 1)
    assert read(branches) == (("b", "main"), 0)  # nothing changed: no git
    git(repo, "branch", "new")
    assert read(branches) == (("b", "main", "new"), 1)  # a branch made between two reads is offered
    assert read(tags) == (("v1", "v2"), 1)
    assert read(tags) == (("v1", "v2"), 0)
    git(repo, "tag", "-d", "v1")
    assert read(tags) == (("v2",), 1)  # a deleted tag is gone
    git(repo, "checkout", "-q", "-b", "topic")  # HEAD moves to a branch made with it
    assert read(branches) == (("b", "main", "new", "topic"), 1)
    git(repo, "checkout", "-q", "main")  # HEAD moves back: the same branches, read again
    assert read(branches) == (("b", "main", "new", "topic"), 1)
    assert read(branches) == (("b", "main", "new", "topic"), 0)


def test_c5_a_kept_git_source_sees_packed_nested_and_deleted_refs(tmp_path, git_runs):
    repo = make_repo(tmp_path / "repo", branches=["b", "c"])
    read = reader(repo, git_runs, KeptReads())
    branches = Source(GIT_BRANCHES)
    assert read(branches) == (("b", "c", "main"), 1)
    git(repo, "pack-refs", "--all")  # the loose refs move into packed-refs
    assert read(branches) == (("b", "c", "main"), 1)
    assert read(branches) == (("b", "c", "main"), 0)
    git(repo, "branch", "-D", "b")  # deleted from packed-refs only
    assert read(branches) == (("c", "main"), 1)
    git(repo, "branch", "team/ana/x")  # in new folders below refs/heads
    assert read(branches) == (("c", "main", "team/ana/x"), 1)
    assert read(branches) == (("c", "main", "team/ana/x"), 0)
    git(repo, "branch", "team/ana/y")  # in a folder that exists: only that folder's stamp changes
    assert read(branches) == (("c", "main", "team/ana/x", "team/ana/y"), 1)
    packed = repo / ".git" / "packed-refs"  # another tool writes packed-refs alone (git itself also takes a lock in refs/heads)
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "packed.new").write_text(packed.read_text(encoding="utf-8") + f"{head} refs/heads/from-a-tool\n", encoding="utf-8")
    os.replace(repo / "packed.new", packed)
    assert read(branches) == (("c", "from-a-tool", "main", "team/ana/x", "team/ana/y"), 1)


def test_c5_a_kept_git_source_of_a_worktree_sees_branches_made_in_its_repository(tmp_path, git_runs):
    repo = make_repo(tmp_path / "repo", branches=["other"])
    git(repo, "worktree", "add", "-q", str(tmp_path / "tree"), "other")
    read = reader(tmp_path / "tree", git_runs, KeptReads())
    assert read(Source(GIT_BRANCHES)) == (("main", "other"), 1)
    assert read(Source(GIT_BRANCHES)) == (("main", "other"), 0)
    git(repo, "branch", "made-in-the-repository")
    assert read(Source(GIT_BRANCHES)) == (("made-in-the-repository", "main", "other"), 1)


def test_c5_a_value_named_beyond_the_offered_ones_is_checked_against_the_refs_as_they_are(tmp_path, git_runs):
    repo = make_repo(tmp_path / "repo", branches=[f"b{n:03d}" for n in range(120)])
    read = reader(repo, git_runs, KeptReads())
    assert read(Source(GIT_BRANCHES), wanted=("b119",))[0][-1] == "b119"
    assert read(Source(GIT_BRANCHES), wanted=("b119",))[1] == 0
    git(repo, "branch", "-D", "b119")
    found, runs = read(Source(GIT_BRANCHES), wanted=("b119",))
    assert "b119" not in found and runs == 1


def test_c5_a_read_whose_stamps_are_too_new_is_never_kept(tmp_path, git_runs, monkeypatch):
    monkeypatch.setattr(stamps, "SETTLED_NS", 3600 * 10**9)  # every stamp is "just made": two edits in one clock tick look alike
    repo = make_repo(tmp_path / "repo", branches=["b"])
    kept = KeptReads()
    before = git_runs()
    assert [read_source(Source(GIT_BRANCHES), repo, kept=kept) for _ in range(3)] == [("b", "main")] * 3
    assert git_runs() - before == 3 and len(kept) == 0


def test_c5_a_failed_git_read_is_never_kept(tmp_path, git_runs):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").write_text("gitdir: /nowhere\n", encoding="utf-8")
    read = reader(project, git_runs, KeptReads())
    first, runs = read(Source(GIT_BRANCHES))
    assert isinstance(first, Unreadable) and runs == 1
    assert read(Source(GIT_BRANCHES)) == (first, 1)


def touch(root: Path, *rels: str) -> None:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")


def test_c5_a_kept_files_source_walks_again_only_when_a_folder_it_walked_changed(tmp_path, walks):
    touch(tmp_path, "docs/a.md", "docs/deep/b.md", "other/c.md")
    read = reader(tmp_path, walks, KeptReads())
    deep, flat = Source(FILES, "docs/**/*.md"), Source(FILES, "docs/*.md")
    assert read(deep) == (("docs/a.md", "docs/deep/b.md"), 1)
    assert read(deep) == (("docs/a.md", "docs/deep/b.md"), 0)
    touch(tmp_path, "other/d.md")  # outside what the glob walks
    (tmp_path / "docs" / "a.md").write_text("edited\n", encoding="utf-8")  # an edit changes no name
    assert read(deep) == (("docs/a.md", "docs/deep/b.md"), 0)
    touch(tmp_path, "docs/deep/new.md")  # a new file is offered
    assert read(deep) == (("docs/a.md", "docs/deep/b.md", "docs/deep/new.md"), 1)
    touch(tmp_path, "docs/deep/er/est.md")  # in a new folder
    assert read(deep) == (("docs/a.md", "docs/deep/b.md", "docs/deep/er/est.md", "docs/deep/new.md"), 1)
    (tmp_path / "docs" / "deep" / "b.md").unlink()
    os.symlink(tmp_path / "other" / "c.md", tmp_path / "docs" / "link.md")  # a link is never listed
    assert read(deep) == (("docs/a.md", "docs/deep/er/est.md", "docs/deep/new.md"), 1)
    assert read(flat) == (("docs/a.md",), 1)  # another glob is read on its own


def test_c5_a_kept_files_source_sees_the_folder_it_names_appear(tmp_path, walks):
    (tmp_path / "project").mkdir()
    read = reader(tmp_path / "project", walks, KeptReads())
    missing = "source files:notes/*.md matches no file in the project; add a matching file or change the glob"
    assert read(Source(FILES, "notes/*.md")) == (Unreadable(missing), 1)
    assert read(Source(FILES, "notes/*.md")) == (Unreadable(missing), 0)
    touch(tmp_path / "project", "notes/first.md")
    assert read(Source(FILES, "notes/*.md")) == (("notes/first.md",), 1)


def test_c5_kept_reads_stay_within_their_bounds(tmp_path, walks):
    for n in range(5):
        touch(tmp_path, f"d{n}/x.md")
    kept = KeptReads(count=3, characters=10_000)
    read = reader(tmp_path, walks, kept)
    for n in range(5):
        read(Source(FILES, f"d{n}/*.md"))
    assert len(kept) == 3
    assert read(Source(FILES, "d4/*.md")) == (("d4/x.md",), 0)  # the most recent are kept
    assert read(Source(FILES, "d0/*.md")) == (("d0/x.md",), 1)  # the oldest were forgotten
    small = KeptReads(count=8, characters=10)
    assert reader(tmp_path, walks, small)(Source(FILES, "d1/*.md"))[0] == ("d1/x.md",)
    assert len(small) == 0  # a read larger than the whole bound is not kept
