"""The step function (C7): given a request, its progress and answers, say what happens next.

`step` returns one of three outcomes: `Render` (every applicable form is done),
`Ask` (the pending forms, with the exact schemas to send) or `Fail` (one clear
message, and the same as data: `guide.forms.failure`). It never raises for any
input and never performs I/O.
"""

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from guide.forms.declare import Form
from guide.forms.declines import unread
from guide.forms.described import Need, need, person_questions
from guide.forms.failure import Fail, Reason, described, failure, without_value
from guide.forms.fields import WORKFLOW_PHASES, Field
from guide.forms.offered import checked_choices, delivered_schema, offered_choices, unreadable
from guide.forms.outcomes import Answer, Ask, Outcome, Progress, Question, Render, Request
from guide.forms.questions import missing
from guide.forms.url_step import LinkRefused, UrlQuestion, link_context, named_fields, opened_steps, render_link, unopened
from guide.forms.values import Invalid, is_unresolved, normalise_answer, normalise_text, problems, text_length, when_status
from guide.protocol import PROJECT
from guide.spelling import near_miss
from guide.text import clip, listed

MAX_ASKS = 4
"""A form is asked at most this many times: once, then three re-asks after invalid answers."""
MAX_ANSWERS_LENGTH = 64 * 1024
"""The most characters the answers of one interaction hold together; a longer answer is refused and asked again.

A legacy read keeps what was answered while it waits for the next form (up to
`--answer-timeout`); without this bound 50 sessions that answered 2 MB each held
230 MB. Keywords are bounded by the address (16 KiB)."""


def step(request: Request, progress: Progress = Progress(), answers: Mapping[str, Answer] | None = None) -> Outcome:
    """Decide the next step of an interaction (C7 steps 2-10); a decline no person made starts the read again without forms."""
    if answers and request.can_elicit and unread(request, answers) is not None:
        return step(replace(request, can_elicit=False))
    keyword_values = read_keywords(request)
    if isinstance(keyword_values, Fail):
        return keyword_values
    interaction = _Interaction(request, keyword_values, progress)
    failure = interaction.take(answers or {})
    if failure:
        return failure
    if not request.can_elicit:
        return interaction.settle_without_client()
    failure = _settle_links(interaction)
    if failure:
        return failure
    pending = interaction.pending()
    if not pending:
        return interaction.render()
    return interaction.ask(pending)


def read_keywords(request: Request) -> dict[str, Any] | Fail:
    """Keywords and args normalised against the declared fields (C6), or the failure of the first invalid one."""
    texts = {name: list(values) for name, values in request.keywords.items()}
    for name, arg in zip(request.arg_fields, request.args):
        texts.setdefault(name, []).append(arg)
    declared = request.forms.fields
    values: dict[str, Any] = {}
    for name, given in texts.items():
        if name == PROJECT:  # the server's, not a value for the templates: it chose the read's project (C10)
            continue
        if name not in declared:
            resembled = near_miss(name, declared)
            if resembled:
                wanted = field_need(request, *declared[resembled])
                message = f"unknown keyword {name}; did you mean {wanted.described()}? (no form declares {name})"
                return failed(request, "unknown-keyword", message, (wanted,), without=name)
            values[name] = given[0] if len(given) == 1 else list(given)
            continue
        field = declared[name][1]
        try:
            value = normalise_text(field, given)
        except Invalid as error:
            return _invalid_keyword(request, name, str(error))
        if is_unresolved(value):
            continue
        cannot = unreadable(field, request.live)
        if cannot:
            return _invalid_keyword(request, name, f"its choices cannot be read: {cannot}")
        found = problems(field, value, checked_choices(field, request.live))
        if found:
            return _invalid_keyword(request, name, found[0])
        values[name] = value
    return values


def field_need(request: Request, form: Form, field: Field) -> Need:
    """A field as a failure of this request names it, with the choices this request offers."""
    offered = None if unreadable(field, request.live) else offered_choices(field, request.active_phase, request.live)
    return need(form, field, offered)


def failed(request: Request, kind: Reason, message: str, needs: tuple[Need, ...] = (), *, without: str | None = None, **options: Any) -> Fail:
    """A failure of this request: retried with its args and keywords (less the value `without` names), a blank per need."""
    args, keywords = without_value(request.args, request.arg_fields, request.keywords, without) if without else (request.args, request.keywords)
    return failure(kind, message, entrypoint=request.entrypoint, args=args, keywords=keywords, needs=needs, **options)


def unanswered(request: Request, form_id: str, message: str, kind: Reason = "unanswered") -> Fail:
    """The failure of a form the client did not answer: the message, and the form's fields to supply as keywords instead."""
    form = next(form for form in request.forms.forms if form.id == form_id)
    needs = tuple(field_need(request, form, field) for field in form.fields if field.name not in request.keywords)
    return failed(request, kind, message + _instead(needs), needs)


def _instead(needs: tuple[Need, ...]) -> str:
    """How a caller goes on without a form it did not answer: its fields as keywords (C7.10)."""
    return f"; to go on without the form, supply its fields as keywords: {described(needs)}" if needs else ""


def _invalid_keyword(request: Request, name: str, problem: str) -> Fail:
    wanted = field_need(request, *request.forms.fields[name])
    return failed(request, "invalid", f"invalid keyword {name}: {problem}; {wanted.accepted()}", (wanted,), without=name)


class _Interaction:
    """The working state of one step; private to `step`."""

    def __init__(self, request: Request, keywords: dict[str, Any], progress: Progress):
        self.request = request
        self.forms = request.forms.forms
        self.keywords = keywords
        self.values = {k: v for k, v in progress.values.items() if k not in keywords}
        self.completed = set(progress.completed)
        self.defaulted = set(progress.defaulted)
        self.requested = progress.requested
        self.attempts = dict(progress.attempts)
        self.reasons: dict[str, str] = {}
        self.held: int | None = None  # how many characters the accepted values hold, counted on the first accept

    @property
    def known(self) -> dict[str, Any]:
        return {**self.values, **self.keywords}

    def take(self, answers: Mapping[str, Answer]) -> Fail | None:
        unrequested = sorted(set(answers) - set(self.requested))
        if unrequested:
            return failed(self.request, "state", f"answers for forms that were not requested: {listed(unrequested)}")
        for form in self.forms:
            if form.id in answers:
                live = self.request.forms.live and _unofferable(self.request, self.keywords, form, live_only=True)
                failure = live or self._take_one(form, answers[form.id])
                if failure:
                    return failure
        return None

    def _take_one(self, form: Form, answer: Answer) -> Fail | None:
        if form.url is not None and answer.action == "accept":
            self.complete(form, defaulted=False)  # what the person enters on the page never reaches Guide: content is not read
            return None
        if answer.action in ("decline", "cancel"):
            if answer.action == "cancel" and ((form.url is None and self._apply_defaults(form)) or form.fallback):
                self.complete(form, defaulted=True)
                return None
            needs = self._unsupplied(form)
            kind: Reason = "declined" if answer.action == "decline" else "cancelled"
            return failed(self.request, kind, f"form {form.id} was {kind}{_instead(needs)}", needs)
        content = answer.content if answer.content is not None else {}
        refused = self._accept(form, content) if isinstance(content, Mapping) else ("the answer is not an object of field values", None)
        if refused is None:
            return None
        reason, name = refused
        self.attempts[form.id] = self.attempts.get(form.id, 0) + 1
        if self.attempts[form.id] >= MAX_ASKS:
            needs = tuple(n for n in self._unsupplied(form) if n.keyword == name) or self._unsupplied(form)
            return failed(self.request, "invalid", f"form {form.id}: {reason} (asked {MAX_ASKS} times)", needs)
        self.reasons[form.id] = reason
        return None

    def _unsupplied(self, form: Form) -> tuple[Need, ...]:
        """The fields of a form that no keyword supplies: what the caller can give instead of an answer (C7.10)."""
        return tuple(field_need(self.request, form, field) for field in form.fields if field.name not in self.keywords)

    def _accept(self, form: Form, content: Mapping[str, Any]) -> tuple[str, str | None] | None:
        """Take a form's accepted answer; or say why it is refused, and which field."""
        stranger = next((name for name in content if form.field(name) is None), None)
        if stranger is not None:  # an answer is to the form asked, field by field: one it did not ask for is refused, not dropped
            asked = ", ".join(field.name for field in form.fields if field.name not in self.keywords)
            return f"field {clip(str(stranger))} is not in form {form.id} (it asks for {asked})", None
        taken = {}
        for field in form.fields:
            if field.name in self.keywords or field.name not in content:
                continue
            offered = offered_choices(field, self.request.active_phase, self.request.live)
            try:
                value = normalise_answer(field, content[field.name])
            except Invalid as error:
                return f"field {field.name}: {error}; {need(form, field, offered).accepted(titled=True)}", field.name
            if value is None:
                continue
            found = problems(field, value, offered)
            if found:
                return f"field {field.name}: {found[0]}; {need(form, field, offered).accepted(titled=True)}", field.name
            taken[field.name] = value
        missing = [name for name in form.required if name not in taken and name not in self.keywords]
        if missing:
            return f"field {missing[0]} is required", missing[0]
        if self.held is None:
            self.held = text_length(self.values)
        held = self.held + text_length(taken)  # what is kept: only declared fields, once read
        if held > MAX_ANSWERS_LENGTH:
            return f"the answers hold {held} characters; Guide keeps at most {MAX_ANSWERS_LENGTH} for one read, so give shorter values", None
        self.values.update(taken)
        self.held = held
        # Fields left blank take their defaults now, so the forms that wait on them see the value.
        self._apply_defaults(form)
        self.complete(form, defaulted=False)
        return None

    def _apply_defaults(self, form: Form) -> bool:
        """Fill unresolved fields from defaults; say whether every required field is then resolved."""
        known = self.known
        defaults = {f.name: _default(f) for f in form.fields if f.has_default and f.name not in known}
        if any(name not in known and name not in defaults for name in form.required):
            return False
        self.values.update(defaults)
        return True

    def complete(self, form: Form, defaulted: bool) -> None:
        self.completed.add(form.id)
        if defaulted:
            self.defaulted.add(form.id)

    def pending(self) -> list[Form]:
        """Applicable forms not yet done that miss a required field or supply a field a `when` waits for."""
        known = self.known
        status = {form.id: when_status(form.when, known) for form in self.forms}
        waiting = {
            name
            for form in self.forms
            if status[form.id] is None and form.id not in self.completed
            for name in form.when
            if name not in known
        }
        pending: list[Form] = []
        for form in self.forms:
            if status[form.id] is not True or form.id in self.completed:
                continue
            # A URL step waits for every form before it, so its link sees their answers.
            if (form.url is not None and not pending) or any(name not in known for name in form.required) or any(f.name in waiting for f in form.fields):
                pending.append(form)
        return pending

    def settle_without_client(self) -> Outcome:
        given, done = self.known, frozenset(self.completed)  # what the person would be asked about, before defaults
        stuck: set[str] = set()
        while True:
            candidates = [form for form in self.pending() if form.id not in stuck]
            if not candidates:
                break
            form = candidates[0]
            if (form.url is None and self._apply_defaults(form)) or form.fallback:
                self.complete(form, defaulted=True)
            else:
                stuck.add(form.id)
        pending = self.pending()
        if not pending:
            return self.render()
        if all(form.url is not None for form in pending):
            return _settle_links(self) or self.render()
        needs = sorted({wanted.keyword: wanted for wanted in self._missing(pending)}.values(), key=lambda wanted: wanted.keyword)
        request = self.request
        # A link is shown once it is due or every field it names is known; before, it would go out half made.
        ready = {form.id for form in pending} | {form.id for form in self.forms if named_fields(form.url or "") <= self.known.keys()}
        shown = lambda form: link if form.id in ready and isinstance(link := _link(self, form), str) else None  # noqa: E731
        asked = person_questions(self.forms, given, done, lambda form, field: field_need(request, form, field), shown)
        return missing(request.entrypoint, request.args, request.keywords, needs, asked, request.route)

    def _missing(self, pending: Iterable[Form]) -> Iterable[Need]:
        """Only what is needed (C7.6): required fields, unresolved, without a usable default."""
        known = self.known
        for form in pending:
            for name in form.required:
                field = form.field(name)
                if name not in known and not field.has_default:
                    yield field_need(self.request, form, field)

    def render(self) -> Render:
        """Render with what is known; fields of applicable forms still unresolved take their defaults."""
        known = self.known
        defaults = {
            field.name: _default(field)
            for form in self.forms
            if when_status(form.when, known) is True
            for field in form.fields
            if field.has_default and field.name not in known
        }
        opened = opened_steps(self.forms, self.completed, self.defaulted) if self.request.forms.links else frozenset()
        return Render({**defaults, **known}, self.request.args, frozenset(self.defaulted), opened)

    def ask(self, pending: list[Form]) -> Ask | Fail:
        phase = self.request.active_phase
        for form in pending:
            failure = _unofferable(self.request, self.keywords, form)
            if failure:
                return failure
        questions: list[Question | UrlQuestion] = []
        for form in pending:
            link = _link(self, form) if form.url is not None else None
            if isinstance(link, Fail):
                return link
            message = _with_reason(form.message, self.reasons.get(form.id))
            schema = delivered_schema(form, phase, self.keywords, self.request.live) if link is None else {}
            questions.append(UrlQuestion(form.id, message, link) if link is not None else Question(form.id, message, schema))
        progress = Progress(
            values=dict(self.values),
            completed=frozenset(self.completed),
            defaulted=frozenset(self.defaulted),
            requested=tuple(form.id for form in pending),
            attempts=dict(self.attempts),
        )
        return Ask(tuple(questions), progress)


def _settle_links(interaction: _Interaction) -> Fail | None:
    """For a client that cannot open URL steps: each pending one takes its `fallback: render`, else fails with its link."""
    if interaction.request.url_mode or not interaction.request.forms.links:
        return None  # nothing to settle: the pending forms are worked out once, by the step
    while form := next((form for form in interaction.pending() if form.url is not None), None):
        if not form.fallback:
            link = _link(interaction, form)
            if isinstance(link, Fail):
                return link
            return failed(interaction.request, "link", unopened(form.id, link), links=((form.id, form.message, link),))
        interaction.complete(form, defaulted=True)
    return None


def _link(interaction: _Interaction, form: Form) -> str | Fail:
    """The link of a URL step as it renders now; one Guide will not send is a failure saying why."""
    opened = opened_steps(interaction.forms, interaction.completed, interaction.defaulted)
    context = link_context(interaction.known, interaction.request.args, opened, interaction.defaulted)
    try:
        return render_link(form.url or "", context, interaction.request.url_hosts)
    except LinkRefused as error:
        return failed(interaction.request, "invalid", f"form {form.id}: {error}")


def _unofferable(request: Request, supplied: Mapping[str, Any], form: Form, live_only: bool = False) -> Fail | None:
    """The failure of a form whose sourced field (not `supplied`) has nothing to offer now (C7.9, C5 sources); None when every one has choices.

    An answer is checked against a live source read again for this round, so it meets the same failure (`live_only`).
    """
    phase = request.active_phase
    for field in form.fields:
        if field.name in supplied or field.source is None:
            continue
        cannot = unreadable(field, request.live)
        if cannot:
            return failed(request, "invalid", f"form {form.id}: field {field.name}: {cannot}", (field_need(request, form, field),))
        if not live_only and field.source.kind == WORKFLOW_PHASES and not offered_choices(field, phase):
            needs = (field_need(request, form, field),)
            message = f"form {form.id}: there is no other workflow phase to choose for {field.name}: {phase} is the only enabled phase"
            message += f"; supply {field.name}={phase} as a keyword or enable more phases in guide.yaml"
            only = {**request.keywords, field.name: (str(phase),)}
            return failure("invalid", message, entrypoint=request.entrypoint, args=request.args, keywords=only, needs=needs)
    return None


def _default(field: Field) -> Any:
    """A field's default in normal form (declarations have already checked it)."""
    return normalise_answer(field, field.default)


def _with_reason(message: str, reason: str | None) -> str:
    return f"{message}\n\nThe previous answer was not accepted: {reason}." if reason else message

