"""The authoring checks of URL-mode forms' links (C5 turn 4), made on an entrypoint's effective forms.

A link template may look up `kwargs.<field>` of a form declared before it (or an
arg: args fill fields), `args`, and `elicitation.opened.<form>` or
`elicitation.defaulted_forms.<form>` of a form before it: what is known when the
step is asked. It reads no partial. Where its scheme and host are written out,
they are checked now against `url-hosts:` (the rendered link is checked again
each time it is asked, `guide.forms.url_step`).
"""

from collections.abc import Collection, Iterator, Sequence

from guide.errors import Issue
from guide.forms.declare import Form, FormSet, form_issue
from guide.forms.url_step import LINK_ROOTS, static_link_problem
from guide.render import DEFAULTED_ROOT, FIELD_ROOT, OPENED_ROOT, inspect
from guide.spelling import near_miss

SEES = "a link sees kwargs.<field> and elicitation.opened.<form> or elicitation.defaulted_forms.<form> of the forms before it, and args"


def link_issues(forms: FormSet, hosts: Sequence[str], declared: Collection[str] = ()) -> list[Issue]:
    """Every problem of the links of these forms' URL steps, each pinned to its form's `url`.

    `declared` are the field names the frontmatter declares, broken forms included: a link naming a field of a
    form with an error of its own is not reported again (that error is what to fix).
    """
    issues = []
    for index, form in enumerate(forms.forms):
        if form.url is not None:
            problems = _problems(form, forms, index, hosts, declared)
            issues += [form_issue(form.origin, form.id, ("url",), f"`url`: {message}") for message in problems]
    return issues


def _problems(form: Form, forms: FormSet, index: int, hosts: Sequence[str], declared: Collection[str]) -> Iterator[str]:
    facts = inspect(form.url or "")
    if facts.problem is not None:
        yield facts.problem[1]
        return
    for name, _ in facts.partials:
        yield f"`{{{{>{name}}}}}`: a link reads no partial; write the address out"
    for root in sorted(facts.roots - LINK_ROOTS):
        yield f"`{root}` is not known when the step is asked; {SEES}"
    before = forms.forms[:index]
    for label, _ in facts.references:
        field = label[len(FIELD_ROOT):].split(".")[0] if label.startswith(FIELD_ROOT) else None
        if field in declared and field not in forms.fields:
            continue  # its form has an error of its own, reported where it is
        found = _reference_problem(label, form, before, forms)
        if found:
            yield found
    problem = static_link_problem(form.url or "", hosts)
    if problem:
        yield f"the link {problem}"


def _reference_problem(label: str, form: Form, before: Sequence[Form], forms: FormSet) -> str | None:
    """What is wrong with one `kwargs.`, `elicitation.opened.` or `elicitation.defaulted_forms.` name in a link."""
    if label.startswith(FIELD_ROOT):
        name = label[len(FIELD_ROOT):].split(".")[0]
        supplier = forms.fields.get(name)
        if supplier is None:
            found = near_miss(name, sorted(forms.fields))
            return f"`{FIELD_ROOT}{name}` names no field{f'; did you mean `{found}`?' if found else ''}; {SEES}"
        if supplier[0] not in before:
            return f"`{FIELD_ROOT}{name}` is asked by form {supplier[0].id}, after this link; declare form {supplier[0].id} before form {form.id}"
        return None
    root = OPENED_ROOT if label.startswith(OPENED_ROOT) else DEFAULTED_ROOT
    name = label[len(root):].split(".")[0]
    candidates = [other.id for other in before if root == DEFAULTED_ROOT or other.url is not None]
    if name in candidates:
        return None
    what = "URL-mode form" if root == OPENED_ROOT else "form"
    found = near_miss(name, candidates)
    return f"`{root}{name}` names no {what} before this one{f'; did you mean `{found}`?' if found else ''}; {SEES}"
