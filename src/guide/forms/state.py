"""Continuation state of a 2026-07-28 interaction (C8): encode, decode and check.

The text made here is sealed and unsealed by the server's request-state boundary;
this module only decides whether an unsealed state belongs to the request at hand.
"""

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from guide.errors import StateError
from guide.forms.step import Answer, Outcome, Progress, Request, failed, step
from guide.forms.values import Invalid, normalise_answer, problems
from guide.text import clip

VERSION = 1
RESTART = "start again without the continuation state"


def encode(request: Request, progress: Progress, asked_at: float | None = None) -> str:
    """The compact JSON text that carries this interaction to its next round; `asked_at` is when its forms go out (the server's clock)."""
    record = {
        "v": VERSION,
        "e": request.entrypoint,
        "d": request.digest,
        "k": {name: list(values) for name, values in sorted(request.keywords.items())},
        "a": list(request.args),
        "x": dict(progress.values),
        "c": sorted(progress.completed),
        "f": sorted(progress.defaulted),
        "r": list(progress.requested),
        "n": dict(progress.attempts),
        "p": request.project,
        **({"t": round(asked_at, 3)} if asked_at is not None else {}),
    }
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def decode(text: str, request: Request) -> Progress:
    """Read a state for this request, or raise `StateError` saying why it cannot be used."""
    record = _parse(text)
    if record["e"] != request.entrypoint:
        raise StateError(f"the continuation state belongs to {clip(record['e'])}, not {request.entrypoint}; {RESTART}")
    keywords = {name: list(values) for name, values in request.keywords.items()}
    if record["k"] != keywords or record["a"] != list(request.args):
        raise StateError(f"the continuation state was made for other keywords or arguments; {RESTART}")
    if record.get("p", "") != request.project:
        raise StateError(f"the continuation state was made for another project; {RESTART}")
    if record["d"] != request.digest:
        raise StateError(f"the forms of {request.entrypoint} changed during the interaction (the docroot was edited); {RESTART}")
    form_ids = {form.id for form in request.forms.forms}
    for key in ("c", "f", "r", "n"):
        unknown = set(record[key]) - form_ids
        if unknown:
            raise StateError(f"the continuation state names unknown forms: {clip(', '.join(sorted(unknown)))}; {RESTART}")
    return Progress(
        values=_checked_values(record["x"], request),
        completed=frozenset(record["c"]),
        defaulted=frozenset(record["f"]),
        requested=tuple(record["r"]),
        attempts={form_id: int(count) for form_id, count in record["n"].items()},
    )


def timed(text: str | None, answers: Mapping[str, Answer], now: float) -> Mapping[str, Answer]:
    """The answers of a retry, each with the seconds since the state's forms were asked (unchanged when that is not known)."""
    try:
        asked = json.loads(text).get("t") if text else None
    except (TypeError, ValueError, AttributeError):
        return answers  # an unreadable state is refused by the step, as it is
    if not isinstance(asked, int | float) or isinstance(asked, bool):
        return answers
    return {form: replace(answer, seconds=now - asked) for form, answer in answers.items()}


def resume(request: Request, text: str | None, answers: Mapping[str, Answer]) -> Outcome:
    """The next step of an interaction continued from a state (none on the first round); a bad state is a `Fail`."""
    try:
        progress = decode(text, request) if text else Progress()
    except StateError as error:
        return failed(request, "state", str(error))
    return step(request, progress, answers)


def _parse(text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except (TypeError, ValueError):
        raise StateError(f"the continuation state is not readable; {RESTART}") from None
    shapes = {"v": int, "e": str, "d": str, "k": dict, "a": list, "x": dict, "c": list, "f": list, "r": list, "n": dict}
    if not isinstance(record, dict) or any(not isinstance(record.get(key), shape) for key, shape in shapes.items()):
        raise StateError(f"the continuation state is malformed; {RESTART}")
    if not isinstance(record.get("t", 0), int | float) or isinstance(record.get("t"), bool):
        raise StateError(f"the continuation state is malformed; {RESTART}")
    if record["v"] != VERSION:
        raise StateError(f"the continuation state has version {record['v']}, this server reads {VERSION}; {RESTART}")
    form_lists = (record["c"], record["f"], record["r"])
    if not all(isinstance(count, int) for count in record["n"].values()) or not all(isinstance(item, str) for ids in form_lists for item in ids):
        raise StateError(f"the continuation state is malformed; {RESTART}")
    return record


def _checked_values(values: Mapping[str, Any], request: Request) -> dict[str, Any]:
    declared = request.forms.fields
    checked = {}
    for name, value in values.items():
        if name not in declared:
            raise StateError(f"the continuation state holds a value for unknown field {clip(name)}; {RESTART}")
        field = declared[name][1]
        try:
            normal = normalise_answer(field, value)
        except Invalid:
            normal = None
        if normal is None or problems(field, normal):
            raise StateError(f"the continuation state holds an invalid value for {name}; {RESTART}")
        checked[name] = normal
    return checked
