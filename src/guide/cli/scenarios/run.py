"""Run checked scenarios: each in every channel it applies to, compared, and its snapshot rewritten when asked.

The channels of one scenario run one after the other, in both protocol eras:
native forms first (what the person gave them is what the keywords channel
reads), then the App form, the agent and keywords. A channel the scenario's
answers cannot reach is not run, and says why: a client without forms
cannot decline or cancel a form, and never hears of a form its defaults
settle (the person's answer to such a form cannot reach Guide that way).
"""

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from guide.cli.init import write_inside
from guide.cli.scenarios import channels
from guide.cli.scenarios.channels import Reading
from guide.cli.scenarios.clients import ERAS, Clients
from guide.cli.scenarios.compare import Difference, Expected, compare
from guide.cli.scenarios.outcome import Outcome
from guide.cli.scenarios.person import Person
from guide.docroot import files
from guide.docroot.scenarios.checks import Checked
from guide.docroot.scenarios.model import CLIENTS, Scenario
from guide.docroot.scenarios.parse import FAILED_BY_ASKING
from guide.errors import Problem
from guide.protocol import PROJECT

PASSED, FAILED, ERROR, UPDATED = "passed", "failed", "error", "updated"


@dataclass
class Result:
    """What became of one scenario (or of a scenario file that could not be read): its status and why."""

    path: str
    line: int
    name: str
    status: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    """Why it cannot run (status `error`)."""
    updated: str | None = None
    """The snapshot `--update` wrote."""
    seconds: float = 0.0


class Runner:
    """Runs scenarios of one docroot through the run's clients."""

    def __init__(self, clients: Clients, root: Path, *, update: bool = False, limit: int = files.MAX_FILE_SIZE):
        self.clients, self.root, self.update, self.limit = clients, root, update, limit

    async def run(self, checked: Checked) -> Result:
        """Run one scenario that passed its checks, and compare what each channel got."""
        scenario, started = checked.scenario, time.perf_counter()
        assert checked.entrypoint is not None
        order = [form.id for form in checked.entrypoint.forms.forms]
        outcomes = await self._channels(scenario, self._reading(scenario), order)
        expected = self._expected(scenario)
        differences = compare(scenario, outcomes, expected)
        result = Result(scenario.path, scenario.line, scenario.name, FAILED if differences else PASSED, outcomes, differences)
        if self.update and scenario.expect.snapshot is not None:
            self._rewrite(scenario, result, expected)
        result.seconds = time.perf_counter() - started
        return result

    def _reading(self, scenario: Scenario) -> Reading:
        reading = Reading(scenario.read, scenario.prompt)
        return reading.adding({PROJECT: str(self.root / scenario.project)}) if scenario.project is not None else reading

    async def _channels(self, scenario: Scenario, reading: Reading, order: list[str]) -> dict[str, Outcome]:
        outcomes: dict[str, Outcome] = {}
        native: dict[str, tuple[Outcome, Person]] = {}
        for client in (client for client in CLIENTS if client in scenario.clients):
            for era in ERAS:
                name, skip = f"{client}/{era}", _not_carried(scenario, client)
                person = Person(scenario.answers)
                if skip is not None:
                    outcomes[name] = Outcome(skipped=skip)
                elif client in ("forms", "url"):
                    outcomes[name] = await channels.native(self.clients, client, era, reading, person, order)
                    if client == "forms":
                        native[era] = (outcomes[name], person)
                elif client == "apps":
                    outcomes[name] = await channels.app_form(self.clients, era, reading, person, order)
                elif client == "agent":
                    outcomes[name] = _unheard(await channels.agent(self.clients, era, reading, person, order), native.get(era), person)
                else:
                    outcomes[name] = await channels.keywords(self.clients, era, reading, native[era][1].submitted if era in native else {})
        return outcomes

    def _expected(self, scenario: Scenario) -> Expected:
        expect = scenario.expect
        if expect.snapshot is None:
            return Expected(expect.text, "expect.text", f"{scenario.path}:{scenario.line_of('expect', 'text')} expect.text")
        try:
            return Expected(files.read_text(self.root, expect.snapshot, self.limit), expect.snapshot, expect.snapshot)
        except files.Refused:
            return Expected(None, expect.snapshot, expect.snapshot)

    def _rewrite(self, scenario: Scenario, result: Result, expected: Expected) -> None:
        """Write the snapshot from the rendered text, when every channel rendered the same text and it differs from the file."""
        texts = {outcome.text for outcome in result.outcomes.values() if outcome.skipped is None}
        text = next(iter(texts)) if len(texts) == 1 else None
        if text is None or text == expected.text or scenario.expect.snapshot is None:
            return
        line = scenario.line_of("expect", "snapshot")
        try:
            write_inside(self.root, scenario.expect.snapshot, text.encode("utf-8"))
        except OSError as error:  # a folder in its place, a link on its way, a disk that is full
            result.differences.append(Difference((), line, f"cannot write the snapshot {scenario.expect.snapshot}: {error.strerror or error}"))
            return
        result.differences = [difference for difference in result.differences if difference.line != line]
        result.updated = scenario.expect.snapshot
        result.status = FAILED if result.differences else UPDATED


def _not_carried(scenario: Scenario, client: str) -> str | None:
    """Why a client of the default set cannot carry this scenario (None: it can); a named client always runs."""
    if scenario.named_clients:
        return None
    if client == "apps" and scenario.prompt is not None:
        return "the App form is opened by address, not by a prompt"
    fails = scenario.expect.fails
    if client in ("agent", "keywords") and (scenario.refuses() or (fails is not None and fails.reason in FAILED_BY_ASKING)):
        return "a client without forms cannot decline or cancel a form, nor be refused one"
    return None


def _unheard(outcome: Outcome, native: tuple[Outcome, Person] | None, person: Person) -> Outcome:
    """The agent's outcome, unless the person answered a form shown natively that the agent was never asked about."""
    if native is None or outcome.asked is None:
        return outcome
    unheard = [form for form in native[0].asked or () if person.accepts(form) and form not in outcome.asked]
    if not unheard:
        return outcome
    return Outcome(skipped=f"the agent is never asked form {', '.join(unheard)} (defaults or `fallback: render` settle it for a client "
                           "without forms), so the answer given to it cannot reach Guide that way")


def counts(results: list[Result]) -> Mapping[str, int]:
    """How many results have each status."""
    return {status: sum(result.status == status for result in results) for status in (PASSED, FAILED, ERROR, UPDATED)}
