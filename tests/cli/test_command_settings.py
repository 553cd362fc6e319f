"""Issue 28: `guide check`, `guide render` and `guide try` read the settings `guide serve` reads, from the same table, checked the same way."""

from pathlib import Path

import pytest

from guide.cli import main
from guide.errors import GuideError
from guide.server.settings import read_settings

COMMAND = "---\ndescription: Say hello.\n---\nHello {{kwargs.name}}.\n"


def docroot(folder: Path, files: dict[str, str] | None = None) -> Path:
    """A one-command docroot (`guide://_hello`) in `folder`, plus `files`."""
    for rel, text in {"_commands/hello.md": COMMAND, **(files or {})}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


@pytest.mark.parametrize(
    "command",
    [["check"], ["render", "guide://_hello?name=Ada"], ["try", "guide://_hello?name=Ada", "--answers", "answers.json"]],
    ids=["check", "render", "try"],
)
def test_a_misspelt_variable_stops_every_command_with_the_line_serve_gives(tmp_path, monkeypatch, capsys, command):
    monkeypatch.setenv("GUIDE_NO_CACHES", "1")  # meant GUIDE_NO_CACHE: before, the command ran and kept its cache anyway
    monkeypatch.setenv("GUIDE_DOCROOT", str(docroot(tmp_path)))
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"guide {command[0]}: GUIDE_NO_CACHES is not a Guide setting; did you mean GUIDE_NO_CACHE?"


def test_a_malformed_value_stops_check_as_it_stops_serve(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GUIDE_MAX_FILE_SIZE", "a lot")
    assert main(["check", str(docroot(tmp_path))]) == 2
    assert capsys.readouterr().err == "guide check: GUIDE_MAX_FILE_SIZE: 'a lot' is not a number greater than 0\n"


def test_check_and_render_read_the_docroot_and_project_from_the_environment(tmp_path, monkeypatch, capsys):
    root = docroot(tmp_path / "docroot", {"_commands/broken.md": "---\nelicitaton: {}\n---\nx\n"})
    monkeypatch.setenv("GUIDE_DOCROOT", str(root))
    assert main(["check"]) == 1  # no argument: GUIDE_DOCROOT's docroot, not the bundled example
    assert "elicitaton" in capsys.readouterr().out
    assert main(["render", "guide://_hello?name=Ada"]) == 0
    assert capsys.readouterr().out == "Hello Ada.\n"
    monkeypatch.setenv("GUIDE_PROJECT", str(tmp_path / "missing"))
    assert main(["render", "guide://_hello?name=Ada"]) == 2
    assert capsys.readouterr().err == f"guide render: GUIDE_PROJECT: '{tmp_path / 'missing'}' is not a folder\n"


def test_check_keeps_its_report_where_the_settings_say_and_nothing_when_told_not_to(tmp_path, monkeypatch, capsys):
    root = docroot(tmp_path / "docroot")
    monkeypatch.setenv("GUIDE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GUIDE_NO_CACHE", "1")
    assert main(["check", str(root)]) == 0
    assert not (tmp_path / "cache").exists()
    monkeypatch.setenv("GUIDE_NO_CACHE", "0")
    assert main(["check", str(root)]) == 0
    assert list((tmp_path / "cache").glob("reports/*.json"))


def test_check_and_render_apply_the_size_settings(tmp_path, monkeypatch, capsys):
    root = docroot(tmp_path / "docroot", {"_commands/long.md": "---\ndescription: Long.\n---\n" + "word " * 200 + "\n"})
    monkeypatch.setenv("GUIDE_MAX_OUTPUT", "100")
    assert main(["render", "guide://_long", "--docroot", str(root)]) == 1
    assert "100 characters" in capsys.readouterr().err
    monkeypatch.setenv("GUIDE_MAX_FILE_SIZE", "500")
    main(["check", str(root)])
    assert "_commands/long.md" in capsys.readouterr().out  # over the size served: reported, as `guide serve` would skip it


def test_an_unknown_access_variable_stops_the_start_even_when_it_resembles_no_setting():
    with pytest.raises(GuideError) as raised:  # before, `guide serve` started with this and left access open
        read_settings({}, {"GUIDE_AUTH_BEARER": "alice:" + "k" * 40})
    assert str(raised.value).startswith("GUIDE_AUTH_BEARER is not a Guide setting; the GUIDE_AUTH_* settings are GUIDE_AUTH_TOKENS, ")
    assert "k" * 40 not in str(raised.value)
    assert read_settings({}, {"GUIDE_AUTH_BEARER": " "}).auth_tokens is None  # set but empty: nothing to misread
