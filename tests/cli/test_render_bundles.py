"""Issue 37, part 3: `guide render` reads a folder address or a collection of the bundled example as a client would."""

from guide.cli import main


def test_render_reads_a_collection_and_a_folder_in_one_text(capsys):
    assert main(["render", "guide://@conventions"]) == 0
    collection = capsys.readouterr().out
    assert main(["render", "guide://lang/"]) == 0
    folder = capsys.readouterr().out
    assert collection == folder  # conventions: [lang/*], and lang/ holds no folder of its own
    headings = [line for line in collection.splitlines() if line.startswith("# ") and "(guide://" in line]
    assert headings == ["# Python conventions (guide://lang/python)", "# lang/typescript (guide://lang/typescript)",
                        "# lang/versions (guide://lang/versions)"]
    assert "```yaml\n" in collection  # a YAML document is fenced


def test_render_says_in_one_line_when_a_bundle_is_past_the_output_cap(capsys, monkeypatch):
    monkeypatch.setenv("GUIDE_MAX_OUTPUT", "300")
    assert main(["render", "guide://lang/"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("guide render: guide://lang/ holds 3 documents, more than one read returns: the first 1 fit")
