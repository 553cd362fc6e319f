"""C5 sources: what `git-*` and `files:` read from a project, within its bounds, and the one line when they cannot."""

import os
import tracemalloc
from pathlib import Path

import pytest
from support.gitrepo import git, make_repo

from guide.forms.declare import FormSet, declare_forms
from guide.forms.sources import FILES, GIT_BRANCHES, GIT_TAGS, MAX_CHOICE_LENGTH, MAX_OFFERED, Offered, Source, Unreadable, within_bounds
from guide.project import sources
from guide.project.sources import derive, read_source


def files(glob: str) -> Source:
    return Source(FILES, glob)


def touch(root: Path, *rels: str) -> None:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")


def test_c5_files_lists_regular_files_matching_the_glob_sorted(tmp_path):
    touch(tmp_path, "docs/b.md", "docs/a.md", "docs/deep/er/c.md", "docs/notes.txt", "docs/.hidden.md", "top.md")
    assert read_source(files("docs/*.md"), tmp_path) == ("docs/a.md", "docs/b.md")
    assert read_source(files("docs/**/*.md"), tmp_path) == ("docs/a.md", "docs/b.md", "docs/deep/er/c.md")
    assert read_source(files("**/*.md"), tmp_path) == ("docs/a.md", "docs/b.md", "docs/deep/er/c.md", "top.md")
    assert read_source(files("docs/**"), tmp_path) == ("docs/a.md", "docs/b.md", "docs/deep/er/c.md", "docs/notes.txt")
    assert read_source(files("docs/.*.md"), tmp_path) == ("docs/.hidden.md",)  # hidden files only when the glob names them
    assert read_source(files("docs/[ab].md"), tmp_path) == ("docs/a.md", "docs/b.md")


def test_c5_files_never_follows_or_lists_a_link(tmp_path):
    project, outside = tmp_path / "project", tmp_path / "outside"
    touch(outside, "secret.md", "inner/deep.md")
    touch(project, "docs/own.md")
    os.symlink(outside / "secret.md", project / "docs" / "link.md")
    os.symlink(outside, project / "docs" / "out")
    os.symlink(outside, project / "out")
    assert read_source(files("docs/**/*.md"), project) == ("docs/own.md",)
    assert read_source(files("out/*.md"), project) == Unreadable("source files:out/*.md matches no file in the project; add a matching file or change the glob")
    assert read_source(files("docs/out/inner/*.md"), project, wanted=("docs/out/inner/deep.md",)) == Unreadable(
        "source files:docs/out/inner/*.md matches no file in the project; add a matching file or change the glob"
    )


def test_c5_ten_thousand_matches_are_capped_at_a_hundred_in_order_and_a_named_one_is_still_found(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    touch(tmp_path, "one")
    for n in range(10_000):
        os.link(tmp_path / "one", folder / f"f{n:05d}.txt")  # a regular file each, made quicker than 10,000 new files
    offered = read_source(files("many/*.txt"), tmp_path)
    assert offered == tuple(f"many/f{n:05d}.txt" for n in range(100))
    named = read_source(files("many/*.txt"), tmp_path, wanted=("many/f09999.txt", "many/nope.txt"))
    assert named == offered + ("many/f09999.txt",)


def test_c5_a_glob_that_looks_at_too_much_is_refused_in_one_line(tmp_path, monkeypatch):
    touch(tmp_path, *(f"d{n}/x.md" for n in range(30)))
    monkeypatch.setattr(sources, "MAX_VISITED", 20)
    found = read_source(files("**/*.md"), tmp_path)
    assert found == Unreadable("source files:**/*.md cannot be read: the glob looks at more than 20 entries; narrow it (for example `docs/**/*.md` instead of `**/*`)")


def test_c5_git_branches_and_tags_of_a_real_repository(tmp_path):
    repo = make_repo(tmp_path / "repo", branches=["feature/x", "a-first"], tags=["v2", "v10"])
    assert read_source(Source(GIT_BRANCHES), repo) == ("a-first", "feature/x", "main")
    assert read_source(Source(GIT_TAGS), repo) == ("v10", "v2")  # sorted by name, as text
    git(repo, "checkout", "-q", "--detach")
    assert read_source(Source(GIT_BRANCHES), repo) == ("a-first", "feature/x", "main")


def test_c5_git_of_a_worktree_reads_its_repository(tmp_path):
    repo = make_repo(tmp_path / "repo", branches=["other"])
    git(repo, "worktree", "add", "-q", str(tmp_path / "tree"), "other")  # its .git is a file naming the repository
    assert read_source(Source(GIT_BRANCHES), tmp_path / "tree") == ("main", "other")


@pytest.mark.parametrize(
    ("setup", "source", "says"),
    [
        ("plain", GIT_BRANCHES, "source git-branches cannot be read: the project folder is not a git repository (it has no .git)"),
        ("inside", GIT_TAGS, "source git-tags cannot be read: the project folder is not a git repository (it has no .git)"),
        ("empty", GIT_BRANCHES, "source git-branches found no branch in the project's repository; make a first commit"),
        ("untagged", GIT_TAGS, "source git-tags found no tag in the project's repository; create one with `git tag`"),
        ("broken", GIT_BRANCHES, "source git-branches cannot be read: git failed (exit 128); the server log says why"),
    ],
)
def test_c5_a_repository_that_cannot_be_read_says_so_in_one_line(tmp_path, setup, source, says, caplog):
    project = tmp_path / "project"
    project.mkdir()
    if setup == "inside":  # a folder inside another repository is not a repository itself: git never looks above the project
        make_repo(tmp_path, tags=["v1"])
    elif setup in ("empty", "untagged"):
        make_repo(project, commit=setup == "untagged")
    elif setup == "broken":
        (project / ".git").write_text("gitdir: /nowhere\n", encoding="utf-8")
    found = read_source(Source(source), project)
    assert isinstance(found, Unreadable) and found.message.startswith(says) and str(tmp_path) not in found.message
    if setup == "broken":
        assert [record.message.count("\n") for record in caplog.records] == [0]  # git's own words: in the log, once, on one line


def test_c5_no_git_where_the_server_runs(tmp_path, monkeypatch):
    make_repo(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert read_source(Source(GIT_BRANCHES), tmp_path) == Unreadable(
        "source git-branches cannot be read: git could not be started where the server runs (is it installed?)"
    )


def test_c5_derive_reads_each_live_field_once_and_keeps_named_values(tmp_path):
    make_repo(tmp_path, branches=[f"b{n:03d}" for n in range(150)])
    elicitation = {
        "f": {
            "message": "M.",
            "schema": {
                "type": "object",
                "properties": {
                    "one": {"type": "string", "source": "git-branches"},
                    "many": {"type": "array", "items": {"type": "string", "source": "git-branches"}},
                    "plain": {"type": "string"},
                },
            },
        }
    }
    forms, issues = declare_forms(elicitation, origin="c.md", allow_source=True)
    assert issues == []
    live = derive(FormSet(tuple(forms)), tmp_path, {"many": ["b140, b149", "b001"]})
    first = tuple(sorted([f"b{n:03d}" for n in range(150)] + ["main"])[:100])
    assert set(live) == {"one", "many"}
    assert live["one"] == first and live["many"] == first + ("b140", "b149")


def test_c5_a_value_a_caller_names_never_reaches_gits_command_line(tmp_path):
    repo = make_repo(tmp_path / "repo", branches=["x"])
    planted = tmp_path / "planted"
    found = read_source(Source(GIT_BRANCHES), repo, wanted=(f"--output={planted}", "x", "-h"))
    assert found == ("main", "x") and not planted.exists()  # compared with what git listed, never passed to it


def packed(repo: Path, names: list[str]) -> Path:
    """`repo` with `names` as branches written straight into `packed-refs` (git accepts names of any length there)."""
    head = git(repo, "rev-parse", "HEAD").strip()
    lines = ["# pack-refs with: peeled fully-peeled sorted"] + [f"{head} refs/heads/{name}" for name in sorted(names)]
    (repo / ".git" / "packed-refs").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return repo


def test_33_2_names_longer_than_a_choice_are_left_out_and_counted_in_one_log_line(tmp_path, caplog):
    repo = packed(make_repo(tmp_path / "repo"), ["a" * 1025, "b" + "é" * 1024, "c" + "x" * 1023, "d-ok"])
    assert read_source(Source(GIT_BRANCHES), repo) == ("c" + "x" * 1023, "d-ok", "main")
    assert [record.getMessage().split(" left out ")[1] for record in caplog.records] == [f"2 values longer than {MAX_CHOICE_LENGTH:,} characters"]
    assert read_source(Source(GIT_BRANCHES), repo, wanted=("a" * 1025, "d-ok")) == ("c" + "x" * 1023, "d-ok", "main")  # named: still too long


def test_33_2_a_source_of_only_huge_names_is_refused_in_one_line_and_kept_small(tmp_path):
    """The issue's repository: 100 branch names of 200 KB (20 MB of `packed-refs`)."""
    repo = packed(make_repo(tmp_path / "repo"), [f"b{n:03}-" + "n" * 200_000 for n in range(100)])
    tracemalloc.start()
    try:
        found = read_source(Source(GIT_BRANCHES), repo)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == Unreadable("source git-branches has no value Guide can offer: it left out 100 values longer than 1,024 characters;"
                               " shorten them, or use another source")
    assert peak < 4 * 1024 * 1024, f"{peak:,} bytes held while reading 20 MB of names"  # before: every name whole, 80 MB and more


def test_33_2_values_past_the_total_a_source_offers_are_left_out(tmp_path):
    deep = "/".join(["f" * 199] * 5)  # 999 characters: paths of 1,000 in folders of names a file system takes
    touch(tmp_path, *(f"{n:02}/{deep}" for n in range(40)))
    found = read_source(files("**"), tmp_path)
    assert len(found) == MAX_OFFERED // 1002 and {len(path) for path in found} == {1002}
    assert within_bounds(["a", "b" * 5, "c"], count=2) == Offered(("a", "b" * 5))
    assert within_bounds(["x" * (MAX_CHOICE_LENGTH + 1), "y"] + ["z" * 1000] * 40).note() == (
        f"left out 1 values longer than {MAX_CHOICE_LENGTH:,} characters and 8 values past the {MAX_OFFERED:,} characters a source offers in all"
    )
