"""Issue 19, finding 5: `guide init` never writes through a link or outside its folder, `--force` or not.

A folder given to `guide init` may come from someone else (a shared folder, a cloned
repository), who can leave a link where a starter file goes. The files outside must
come out unchanged, whatever the link points to, and also when a link appears after
the check (the writer itself never opens what a link or a hard link leads to).
"""

import errno
import os

import pytest

from guide.cli import main
from guide.cli.init import write_inside
from robustness.hostile import symlink

MINE = "flags: {mine: true}\n"


@pytest.fixture
def outside(tmp_path):
    """A folder beside the target, with a file of its own."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "precious.yaml").write_text(MINE)
    return folder


def files_under(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file() or path.is_symlink())


@pytest.mark.parametrize("force", [False, True])
def test_finding_5_a_symlinked_guide_yaml_is_refused_and_its_target_unchanged(tmp_path, outside, capsys, force):
    target = tmp_path / "docroot"
    target.mkdir()
    symlink(target / "guide.yaml", outside / "precious.yaml")
    assert main(["init", str(target), *(["--force"] if force else [])]) == 2
    err = capsys.readouterr().err
    if force:
        assert err == (
            f"guide init: {target / 'guide.yaml'} is a symbolic link, which guide init never writes through "
            f"(it may lead outside {target}); remove it or choose another folder\n"
        )
    assert (outside / "precious.yaml").read_text() == MINE
    assert files_under(target) == ["guide.yaml"]  # refused before anything was written


def test_finding_5_a_symlinked_folder_is_refused_and_nothing_lands_outside(tmp_path, outside, capsys):
    target = tmp_path / "docroot"
    target.mkdir()
    symlink(target / "_skills", outside)
    symlink(target / "conventions.md", outside / "created-by-init.md")  # a link to nothing: writing through it would create a file outside
    assert main(["init", str(target), "--force"]) == 2
    assert "is a symbolic link, which guide init never writes through" in capsys.readouterr().err
    assert files_under(outside) == ["precious.yaml"]


def test_finding_5_a_hard_link_is_replaced_not_written_through(tmp_path, outside, capsys):
    target = tmp_path / "docroot"
    target.mkdir()
    os.link(outside / "precious.yaml", target / "guide.yaml")
    assert main(["init", str(target), "--force"]) == 0
    assert "guide.yaml  (replaced)" in capsys.readouterr().out
    assert (outside / "precious.yaml").read_text() == MINE
    assert "language: Python" in (target / "guide.yaml").read_text()


def test_finding_5_a_link_that_appears_after_the_check_is_not_followed(tmp_path, outside):
    target = tmp_path / "docroot"
    target.mkdir()
    symlink(target / "guide.yaml", outside / "precious.yaml")
    assert write_inside(target, "guide.yaml", b"flags: {}\n") is True
    assert not (target / "guide.yaml").is_symlink() and (target / "guide.yaml").read_text() == "flags: {}\n"
    assert (outside / "precious.yaml").read_text() == MINE

    symlink(target / "_skills", outside)
    with pytest.raises(OSError) as raised:
        write_inside(target, "_skills/handover/SKILL.md", b"# mine\n")
    assert raised.value.errno in (errno.ELOOP, errno.ENOTDIR)
    assert files_under(outside) == ["precious.yaml"]
    assert files_under(target) == ["_skills", "guide.yaml"]  # no temporary file is left behind


def test_the_target_folder_itself_may_be_a_link_to_a_folder(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    link = symlink(tmp_path / "docs", real)
    assert main(["init", str(link)]) == 0
    assert "guide.yaml" in files_under(real)
    symlink(tmp_path / "nowhere", tmp_path / "missing")
    assert main(["init", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.endswith(f"guide init: {tmp_path / 'nowhere'} is a symbolic link to nothing\n")
