"""Why `guide render` treated each form as it did: supplied, defaulted, skipped, asked, answered or not applicable.

A report is derived from the request and the outcome of the interaction, with
the same rules the step function follows (C7): a field counts as given only
when its keyword is valid, and a form's `when` is read against the values the
render used, defaults included.
"""

from collections.abc import Mapping, Set
from dataclasses import dataclass, replace
from typing import Any

from guide.forms.declare import Form
from guide.forms.step import Fail, Outcome, Render, Request, read_keywords
from guide.forms.values import when_status
from guide.text import show

STATUSES = (
    "supplied", "defaulted", "fallback", "optional", "missing", "invalid",
    "not-applicable", "waiting", "skipped", "answered", "declined", "cancelled", "not-reached",
)
"""Every status a form report can have (`guide render --format json`)."""
UNMENTIONED = "unmentioned"
"""The reply recorded for a form the answers file does not mention (it is cancelled)."""
REFUSED = "refused"
"""The reply recorded for a form whose answer in the file the form refuses."""


@dataclass(frozen=True)
class FormReport:
    """What happened to one form, and why."""

    id: str
    status: str
    reason: str

    def line(self) -> str:
        """The report as `guide render` prints it to standard error."""
        return f"form {self.id}: {self.status.replace('-', ' ')}: {self.reason}"

    def as_json(self) -> dict[str, str]:
        """The report as `guide render --format json` prints it."""
        return {"id": self.id, "status": self.status, "reason": self.reason}


@dataclass(frozen=True)
class _Facts:
    known: Mapping[str, Any]
    invalid: Mapping[str, str]
    values: Mapping[str, Any]
    outcome: Outcome
    asked: Set[str]
    replies: Mapping[str, str] | None


def explain(request: Request, outcome: Outcome, asked: Set[str] = frozenset(), replies: Mapping[str, str] | None = None) -> list[FormReport]:
    """One report per form of the request, in order.

    `asked` holds the forms an interactive client would be asked first (for a
    render without a client); `replies` the action taken on each form that was
    answered (for a render with an answers file).
    """
    known, invalid = read_each(request)
    values = dict(outcome.kwargs) if isinstance(outcome, Render) else _with_defaults(request, known)
    facts = _Facts(known, invalid, values, outcome, asked, replies)
    return [_report(form, facts) for form in request.forms.forms]


def read_each(request: Request) -> tuple[dict[str, Any], dict[str, str]]:
    """The keyword and arg values that are valid, and why each invalid one is not, read one keyword at a time."""
    known: dict[str, Any] = {}
    invalid: dict[str, str] = {}
    groups = [([name], replace(request, keywords={name: given}, args=())) for name, given in request.keywords.items()]
    if request.args:
        groups.append((list(request.arg_fields[: len(request.args)]), replace(request, keywords={})))
    for names, single in groups:
        found = read_keywords(single)
        if isinstance(found, Fail):
            invalid.update(dict.fromkeys(names, found.message))
        else:
            known.update(found)
    return known, invalid


def _report(form: Form, facts: _Facts) -> FormReport:
    bad = [field.name for field in form.fields if field.name in facts.invalid]
    if bad:
        return FormReport(form.id, "invalid", facts.invalid[bad[0]])
    if facts.replies is not None and form.id in facts.replies:
        return _replied(form, facts.replies[form.id], facts)
    applies = when_status(form.when, facts.values)
    if applies is False:
        return FormReport(form.id, "not-applicable", _conditions(form, facts.values))
    if facts.replies is not None and isinstance(facts.outcome, Fail):
        return FormReport(form.id, "not-reached", "the interaction ended before it was settled")
    if applies is None:
        unknown = ", ".join(name for name in form.when if name not in facts.values)
        if isinstance(facts.outcome, Render):
            return FormReport(form.id, "skipped", f"{unknown} stayed unknown, so {_conditions(form, {})} cannot be decided")
        return FormReport(form.id, "waiting", f"asked once {unknown} is known ({_conditions(form, {})})")
    report = _applicable(form, facts)
    if form.id in facts.asked:
        return replace(report, reason=f"{report.reason}; an interactive client would be asked")
    return report


def _applicable(form: Form, facts: _Facts) -> FormReport:
    if form.url is not None:
        if form.fallback:
            return FormReport(form.id, "fallback", "a URL step: without a client that opens links it renders without it (`fallback: render`)")
        return FormReport(form.id, "missing", "a URL step: the person opens its link, in a client that opens links (URL-mode elicitation)")
    given = [field.name for field in form.fields if field.name in facts.known]
    gives = f"keywords give {', '.join(given)}" if given else ""
    missing = [name for name in form.required if name not in facts.known]
    lacking = [name for name in missing if not form.field(name).has_default]
    defaulted = isinstance(facts.outcome, Render) and form.id in facts.outcome.defaulted
    if not missing and not defaulted:
        return FormReport(form.id, "supplied", gives) if given else FormReport(form.id, "optional", "it requires nothing")
    if not lacking:
        filled = [field.name for field in form.fields if field.has_default and field.name not in facts.known]
        reason = f"its defaults fill {', '.join(filled)}" if filled else "nothing it requires is missing"
        return FormReport(form.id, "defaulted", "; ".join(part for part in (gives, reason) if part))
    if form.fallback:
        return FormReport(form.id, "fallback", f"it renders without {', '.join(lacking)} (`fallback: render`)")
    return FormReport(form.id, "missing", "supply " + ", ".join(f"{name}=" for name in lacking))


def _replied(form: Form, action: str, facts: _Facts) -> FormReport:
    if action == REFUSED:
        return FormReport(form.id, "invalid", facts.outcome.message if isinstance(facts.outcome, Fail) else "its answer was refused")
    if action == "accept":
        return FormReport(form.id, "answered", "answered from the answers file")
    if action == "decline":
        return FormReport(form.id, "declined", "declined in the answers file, which ends the interaction")
    how = "not in the answers file, so cancelled" if action == UNMENTIONED else "cancelled in the answers file"
    if not (isinstance(facts.outcome, Render) and form.id in facts.outcome.defaulted):
        return FormReport(form.id, "cancelled", f"{how}, with no defaults or `fallback: render` to stand in")
    stand_in = "`fallback: render` stands in" if form.fallback and not _defaults_fill(form, facts.known) else "its defaults stand in"
    return FormReport(form.id, "cancelled", f"{how}; {stand_in}")


def _defaults_fill(form: Form, known: Mapping[str, Any]) -> bool:
    return all(name in known or form.field(name).has_default for name in form.required)


def _with_defaults(request: Request, known: Mapping[str, Any]) -> dict[str, Any]:
    """The values a render would see: defaults of every applicable form added, as forms become applicable."""
    values = dict(known)
    for _ in request.forms.forms:
        added = {
            field.name: field.default
            for form in request.forms.forms
            if when_status(form.when, values) is True
            for field in form.fields
            if field.has_default and field.name not in values
        }
        if not added:
            break
        values.update(added)
    return values


def _conditions(form: Form, values: Mapping[str, Any]) -> str:
    parts = []
    for name, expected in form.when.items():
        part = f"{name} in [{', '.join(show(value) for value in expected)}]"
        parts.append(f"{part} (it is {show(values[name])})" if name in values else part)
    return "when " + " and ".join(parts)
