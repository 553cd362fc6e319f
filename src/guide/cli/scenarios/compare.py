"""Compare what each channel got with what the scenario expects, and with each other: every difference, with a diff.

Channels that got the same outcome are compared together and named together,
so a channel that disagrees with the others is named on its own. The forms
asked are compared where the read rendered (before a failure the eras ask
different forms by design: a legacy client stops at the form that failed); without
`expect.asks`, the clients that show forms must still agree on them.
"""

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from guide.cli.scenarios.outcome import Outcome
from guide.docroot.scenarios.model import ASKING, Scenario

MAX_SHOWN_LINES = 40
"""The most lines of a rendered text a difference quotes when no text was expected."""


@dataclass(frozen=True)
class Difference:
    """One thing that is not as expected: the channels concerned, the scenario file's line, what differs, and the diff."""

    channels: tuple[str, ...]
    line: int
    message: str
    diff: str = ""


@dataclass(frozen=True)
class Expected:
    """The text a scenario expects (None: it expects none, or its snapshot is missing), how a message names it, and where it is."""

    text: str | None
    label: str
    """`expect.text`, or the snapshot file."""
    where: str
    """The file (and line) of the text, for a diff's header."""


def compare(scenario: Scenario, outcomes: Mapping[str, Outcome], expected: Expected) -> list[Difference]:
    """Every difference between the channels' outcomes and the scenario's expectation, and between the channels."""
    ran = {channel: outcome for channel, outcome in outcomes.items() if outcome.skipped is None}
    groups = _groups(ran, lambda outcome: outcome.key)
    expect = scenario.expect
    if expect.snapshot is not None and expected.text is None:
        found = [Difference((), scenario.line_of("expect", "snapshot"),
                            f"the snapshot {expect.snapshot} does not exist yet; `guide test --update` writes it from the rendered text")]
    elif expect.text is not None or expect.snapshot is not None:
        line = scenario.line_of("expect", "text" if expect.text is not None else "snapshot")
        found = [_text(channels, outcome, expected, line) for channels, outcome in groups if outcome.text != expected.text]
    elif expect.fails is not None:
        found = [difference for channels, outcome in groups if (difference := _failure(scenario, channels, outcome)) is not None]
    else:
        found = [_disagrees(channels, outcome, groups[0], scenario.line) for channels, outcome in groups[1:]]
    return found + _asks(scenario, ran) + _left(scenario, ran)


def _left(scenario: Scenario, ran: Mapping[str, Outcome]) -> list[Difference]:
    """Why a client with forms and the agent differ when a form is left unanswered: one cancels it, the other leaves it blank."""
    cancelled = any(outcome.reason == "cancelled" and channel.split("/")[0] in ASKING for channel, outcome in ran.items())
    missing = any(outcome.reason == "missing" and channel.split("/")[0] in ("agent", "keywords") for channel, outcome in ran.items())
    if not (cancelled and missing):
        return []
    return [Difference((), scenario.line, "a form the scenario does not answer is cancelled by a client that shows forms and left blank "
                       "by the agent: answer it, or write `cancel` for it to test the cancellation (the agent then does not run)")]


def _groups(outcomes: Mapping[str, Outcome], key) -> list[tuple[tuple[str, ...], Outcome]]:
    """Channels by what they got, the largest group first."""
    groups: dict[object, list[str]] = {}
    for channel, outcome in outcomes.items():
        groups.setdefault(key(outcome), []).append(channel)
    ordered = sorted(groups.values(), key=len, reverse=True)
    return [(tuple(channels), outcomes[channels[0]]) for channels in ordered]


def _text(channels: tuple[str, ...], outcome: Outcome, expected: Expected, line: int) -> Difference:
    if outcome.text is None:
        return Difference(channels, line, f"expected the text of {expected.label}, but the read {outcome.summary()}")
    assert expected.text is not None
    message = f"the rendered text differs from {expected.label}"
    if expected.text.rstrip("\n") == outcome.text.rstrip("\n"):
        message += (" only in the newlines at its end (in YAML, `text: |` keeps one, `|-` none, `|+` all of them)")
    return Difference(channels, line, message, unified(expected.text, outcome.text, expected.where, "rendered"))


def _failure(scenario: Scenario, channels: tuple[str, ...], outcome: Outcome) -> Difference | None:
    fails = scenario.expect.fails
    assert fails is not None
    line = scenario.line_of("expect", "fails")
    wanted = f"reason {fails.reason}" + (f" (fields: {', '.join(fails.fields)})" if fails.fields is not None else "")
    if outcome.text is not None:
        return Difference(channels, line, f"rendered instead of failing with {wanted}", _quoted(outcome.text))
    if outcome.reason != fails.reason or (fails.fields is not None and outcome.fields != fails.fields):
        return Difference(channels, line, f"{outcome.summary()}; expected {wanted}")
    return None


def _disagrees(channels: tuple[str, ...], outcome: Outcome, reference: tuple[tuple[str, ...], Outcome], line: int) -> Difference:
    others, theirs = reference
    message = f"disagrees with {', '.join(others)}: {outcome.summary()}, where they {theirs.summary()}"
    diff = unified(theirs.text, outcome.text, ", ".join(others), "this channel") if theirs.text is not None and outcome.text is not None else ""
    return Difference(channels, line, message, diff)


def _asks(scenario: Scenario, ran: Mapping[str, Outcome]) -> list[Difference]:
    """The forms asked, against `expect.asks`, or (without it) the same in every client that shows forms; where the read rendered.

    `expect.asks` is checked in the clients that show forms; in a scenario run by the agent alone, against the questions it put."""
    expected = scenario.expect.asks
    if expected is not None:
        # The agent is told only what it must ask (C7.6): its questions count when it is the only client.
        agent_only = all(channel.split("/")[0] == "agent" for channel in ran)
        asking = {channel: outcome for channel, outcome in ran.items() if outcome.asked is not None
                  and (agent_only or channel.split("/")[0] in ASKING)}
        line = scenario.line_of("expect", "asks")
        found = [Difference(channels, line, f"expected the forms asked, but the read {outcome.summary()}")
                 for channels, outcome in _groups({c: o for c, o in asking.items() if not o.rendered}, lambda o: o.key)
                 if scenario.expect.text is None and scenario.expect.snapshot is None]
        return found + [Difference(channels, line, f"asked {_listed(outcome.asked)}, where {_listed(expected)} was expected")
                        for channels, outcome in _groups({c: o for c, o in asking.items() if o.rendered}, lambda o: o.asked)
                        if outcome.asked != expected]
    showing = {channel: outcome for channel, outcome in ran.items() if outcome.rendered and channel.split("/")[0] in ("forms", "apps")}
    groups = _groups(showing, lambda outcome: outcome.asked)
    return [Difference(channels, scenario.line, f"asked {_listed(outcome.asked)}, where {', '.join(groups[0][0])} asked "
                       f"{_listed(groups[0][1].asked)}") for channels, outcome in groups[1:]]


def _listed(forms: Sequence[str] | None) -> str:
    return f"[{', '.join(forms or ())}]"


def unified(expected: str, got: str, expected_label: str, got_label: str) -> str:
    """A unified diff of two texts, a missing newline at the end of either shown as such."""
    lines = difflib.unified_diff(_lines(expected), _lines(got), f"{expected_label} (expected)", got_label, lineterm="\n")
    return "".join(lines)


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at the end\n"
    return lines


def _quoted(text: str) -> str:
    lines = text.splitlines(keepends=True)
    shown = "".join(f"| {line}" if line.endswith("\n") else f"| {line}\n" for line in lines[:MAX_SHOWN_LINES])
    return shown + (f"| ... ({len(lines) - MAX_SHOWN_LINES} more lines)\n" if len(lines) > MAX_SHOWN_LINES else "")
