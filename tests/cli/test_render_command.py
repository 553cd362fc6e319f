"""`guide render`: render without a client and explain each form."""

import pytest

from guide.cli import main


def test_render_explains_supplied_inapplicable_and_defaulted_forms(capsys):
    assert main(["render", "guide://_review?mode=uncommitted"]) == 0
    out, err = capsys.readouterr()
    assert "# Review: uncommitted" in out
    assert "No depth was chosen, so this is a quick pass." in out
    assert "form target: supplied by keywords" in err
    assert "form reference: not applicable: when mode in ['branch', 'pull-request']" in err
    assert "form depth: defaulted: its schema defaults resolve it" in err


def test_render_takes_values_from_set_and_reports_fallback(capsys):
    assert main(["render", "guide://_release", "--set", "label=v1.2.3", "--set", "dry_run=true"]) == 0
    out, err = capsys.readouterr()
    assert "# Release v1.2.3" in out
    assert "- attempts: 3" in out
    assert "- dry run: true" in out
    assert "form options: supplied by keywords" in err
    assert "form notes: defaulted: fallback: render" in err


def test_render_names_the_missing_keywords_and_exits_1(capsys):
    assert main(["render", "guide://_review", "--set", "mode=branch"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "form reference: would be asked: missing reference" in err
    assert "supply the keywords: reference" in err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["render", "guide://_review", "--set", "novalue"], "--set takes K=V"),
        (["render", "guide://_review?mode=sideways"], "invalid keyword mode"),
        (["render", "guide://_nothing"], "no command nothing"),
    ],
)
def test_render_reports_bad_input_in_one_line(capsys, arguments, message):
    assert main(arguments) == 1
    assert message in capsys.readouterr().err


def test_render_serves_help_without_asking(capsys):
    assert main(["render", "guide://_help/review"]) == 0
    out = capsys.readouterr().out
    assert "## Form `reference`" in out
    assert "keyword `reference=`" in out
