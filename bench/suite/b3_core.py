"""B3: one step of the pure core for the 12-form entrypoint (every field type, branches over four rounds).

The interaction is driven once to record the (progress, answers) input of each
step; each step is then timed on its own. The figure is the slowest step's median.
"""

from __future__ import annotations

from pathlib import Path

from bench.harness.common import Config
from bench.harness.docroot_gen import RICH_ANSWERS, rich_docroot
from bench.harness.measure import interleave_sync, repeat_sync, summary
from guide.docroot.folder import Docroot
from guide.forms import state
from guide.forms.step import Answer, Ask, Progress, Render, step
from guide.routes.lookup import AddressRead, resolve

TARGET_US = 50.0


def rich_request(workdir: Path):
    root = rich_docroot(workdir / "b3-docroot")
    call = resolve(Docroot(root).build(), AddressRead("guide://_rich"))
    return call.request(can_elicit=True, active_phase=None)


def interaction(request) -> list[tuple[Progress, dict]]:
    """The inputs of every step of the all-forms path, in order."""
    inputs = [(Progress(), {})]
    outcome = step(request)
    while isinstance(outcome, Ask):
        answers = {q.form: Answer("accept", RICH_ANSWERS[q.form]) for q in outcome.questions}
        inputs.append((outcome.progress, answers))
        outcome = step(request, outcome.progress, answers)
    if not isinstance(outcome, Render):
        raise AssertionError(f"B3: the interaction ended with {outcome}")
    return inputs


async def run(config: Config, workdir: Path) -> dict:
    request = rich_request(workdir)
    inputs = interaction(request)
    cases = {index: (lambda p=progress, a=answers: step(request, p, a)) for index, (progress, answers) in enumerate(inputs)}
    times = interleave_sync(cases, rounds=config.core_rounds, inner=config.core_inner)
    steps = []
    for index, (progress, answers) in enumerate(inputs):
        outcome = step(request, progress, answers)
        kind = f"ask {len(outcome.questions)}" if isinstance(outcome, Ask) else type(outcome).__name__.lower()
        steps.append({"step": index + 1, "answers": len(answers), "outcome": kind, **{k: v * 1e6 if k != "n" else v for k, v in summary(times[index]).items()}})
    # The edge's own per-round work on the same data, for context (not part of the core step).
    last_ask = step(request, *inputs[-2])
    text = state.encode(request, last_ask.progress) if isinstance(last_ask, Ask) else ""
    codec = summary(repeat_sync(lambda: state.decode(text, request), rounds=config.core_rounds, inner=config.core_inner))
    worst = max(s["median"] for s in steps)
    return {
        "id": "B3",
        "what": "one step of the pure core, 12 forms, branches and all field types",
        "target": f"median <= {TARGET_US:g} us",
        "unit": "us",
        "figure": worst,
        "figure_is": "the slowest step's median",
        "all_steps_median": sorted(s["median"] for s in steps)[len(steps) // 2],
        "steps": steps,
        "state_decode_us": codec["median"] * 1e6,
        "met": worst <= TARGET_US,
    }
