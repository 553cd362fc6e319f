"""`bench.probes.stress --hostile`'s pieces, without its runs (those take minutes): the hostile files and the verdict."""

from bench.probes.stress_hostile import HUGE_NAME, HUGE_REFS, PATTERN_BOMB, compare, restore, write_flag_bomb, write_hostile
from guide.docroot.files import MAX_FILE_SIZE


def test_the_hostile_variant_writes_each_hostile_file_within_the_file_cap_and_judges_both_targets(tmp_path):
    """The files are what the findings describe, and either target failing fails the run."""
    root = tmp_path / "docroot"
    (root / "_commands").mkdir(parents=True)
    (root / "_partials").mkdir()
    (tmp_path / "project").mkdir()
    write_hostile(root, tmp_path / "project")
    restore(root)
    assert PATTERN_BOMB in (root / "_commands/pattern.md").read_text(encoding="utf-8") and len(PATTERN_BOMB) < 40
    refs = (tmp_path / "project/.git/packed-refs").read_text(encoding="utf-8").splitlines()
    assert len(refs) == HUGE_REFS and {len(line.split(" refs/heads/")[1]) for line in refs} == {HUGE_NAME + 5}
    nested = (root / "_commands/nested.md").read_text(encoding="utf-8")
    assert nested.count("{{#a}}") == 15_000 and (root / "_commands/aliases.md").read_text(encoding="utf-8").count("*big") == 10_000
    assert (root / "_commands/indented.md").read_text(encoding="utf-8").splitlines()[1] == " " * 500 + "{{>wide}}"
    assert all(path.stat().st_size <= MAX_FILE_SIZE for path in root.rglob("*.md") if not any(part in ("a", "b") for part in path.parts))
    assert len([path for path in (root / "diamond").rglob("*") if path.is_symlink() and path.parent.parent == root / "diamond"]) == 36
    write_flag_bomb(tmp_path / "bomb")
    config = (tmp_path / "bomb/guide.yaml").read_text(encoding="utf-8")
    assert config.count("*chunk") == 5_000 and "workflow: true" in config  # the example's own flags stay

    healthy = {"rss_mb": {"before_storm": 100.0, "peak": 110.0, "after_storm": 105.0}, "failed_reads": 0}
    side = {"flag_bomb": {"failed_reads": 0, "peak_rss_mb": 100.0}}
    assert compare(healthy, {**healthy, "hostile": side}, 1.2)["met"]
    assert not compare(healthy, {**healthy, "failed_reads": 1, "hostile": side}, 1.2)["met"]
    assert not compare(healthy, {**healthy, "rss_mb": {**healthy["rss_mb"], "peak": 140.0}, "hostile": side}, 1.2)["met"]
    assert not compare(healthy, {**healthy, "hostile": {"flag_bomb": {"failed_reads": 0, "peak_rss_mb": 900.0}}}, 1.2)["met"]
