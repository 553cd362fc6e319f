"""How `guide test` compares channels: with the expectation and with each other, naming the channels that differ."""

from guide.cli.scenarios.compare import Expected, compare, unified
from guide.cli.scenarios.outcome import Outcome
from guide.docroot.scenarios.parse import parse

TEXT = "# Review\nline two\n"


def scenario(expect: str):
    [found] = parse("_tests/x.yaml", f"case:\n  read: guide://_review\n  expect:\n{expect}").scenarios
    return found


def rendered(text: str = TEXT, asked=("target",)) -> Outcome:
    return Outcome(text, asked=asked)


def test_a_channel_whose_text_differs_is_named_alone_with_a_diff():
    outcomes = {"forms/legacy": rendered(), "forms/2026-07-28": rendered(), "apps/legacy": rendered("# Review\nline 2\n"),
                "agent/legacy": Outcome(skipped="not carried")}
    [difference] = compare(scenario("    text: |\n      # Review\n      line two\n"), outcomes, Expected(TEXT, "expect.text", "x:4"))
    assert difference.channels == ("apps/legacy",) and difference.line == 4
    assert difference.diff.splitlines() == ["--- x:4 (expected)", "+++ rendered", "@@ -1,2 +1,2 @@", " # Review", "-line two", "+line 2"]


def test_without_an_expected_text_the_channels_must_still_agree():
    outcomes = {"forms/legacy": rendered(), "forms/2026-07-28": rendered(), "agent/legacy": Outcome(reason="missing", fields=("mode",), message="m")}
    [difference] = compare(scenario("    asks: [target]\n"), outcomes, Expected(None, "expect.text", "x"))
    assert difference.channels == ("agent/legacy",)
    assert difference.message.startswith("disagrees with forms/legacy, forms/2026-07-28: failed with reason missing (fields: mode)")


def test_clients_that_show_forms_must_ask_the_same_forms():
    outcomes = {"forms/legacy": rendered(asked=("target", "depth")), "apps/legacy": rendered(asked=("target",)),
                "agent/legacy": rendered(asked=())}
    [difference] = compare(scenario("    text: |\n      # Review\n      line two\n"), outcomes, Expected(TEXT, "expect.text", "x"))
    assert difference.channels == ("apps/legacy",) or difference.channels == ("forms/legacy",)
    assert "asked [" in difference.message


def test_a_failure_is_compared_by_reason_and_fields():
    outcomes = {"forms/legacy": Outcome(reason="declined", fields=("mode",), message="m"),
                "apps/legacy": Outcome(reason="declined", fields=("mode", "reference"), message="m")}
    [difference] = compare(scenario("    fails: {reason: declined, fields: [mode]}\n"), outcomes, Expected(None, "", ""))
    assert difference.channels == ("apps/legacy",) and difference.message.endswith("expected reason declined (fields: mode)")
    assert compare(scenario("    fails: {reason: declined}\n"), outcomes, Expected(None, "", "")) == []


def test_a_missing_newline_at_the_end_is_shown():
    assert unified("a\n", "a", "x", "y").splitlines()[-3:] == ["-a", "+a", "\\ No newline at the end"]
