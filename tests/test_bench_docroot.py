"""The generated benchmark docroot is one an author could ship: `guide check` finds no error and no note."""

from bench.harness.docroot_gen import generate
from guide.cli import main


def test_the_generated_docroot_checks_clean(tmp_path, capsys):
    described = generate(tmp_path / "docroot", 200)
    assert main(["check", str(tmp_path / "docroot")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok:"), out[-2000:]
    assert f"skills={described['skills']}" in out
