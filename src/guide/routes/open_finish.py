"""Render an entrypoint before the person answers: each open value as `<name>`, each branch on one as a condition in words.

`guide export-skills` writes a skill that asks its questions itself
(`guide.forms.left_open`), so its body is rendered before the answers exist.
Mustache can only print a value or test whether it is set, so every tag that
names an open value is rewritten before the one engine renders the body and its
partials with the values known now (`guide.render`, as `guide.routes.finish`
does):

- `{{kwargs.NAME}}` (escaped or not) prints `<NAME>`, the name the questions
  give the answer; so does `{{.}}` right inside a section on that field;
- a section or inverted section on an open value keeps its text, under the
  condition that opens it: on its own line as `**If `NAME` is given:**` ...
  `**(end: if `NAME` is given)**`, inside a line as `[if `NAME` is given: ...]`;
  a boolean reads "is true"/"is false", a list "for each value of", a number
  "is given and not 0", a form's defaults and a URL step's link say whether the
  person kept them or opened it.

Both branches of a test on an open value are written out, so no answer loses
its instructions and nothing of Mustache is left. Values known now render as
they always do.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from guide import render
from guide.docroot.frontmatter import Parsed
from guide.forms.declare import Form
from guide.forms.fields import Field
from guide.forms.left_open import Open
from guide.mustache_tags import Tag, tags
from guide.routes.lookup import Call
from guide.text import clip, one_line

LABELS = "_guide_open"
"""The context root of the condition texts the rewritten tags print (C9's context has no such name)."""
QUOTED = 60
"""The most characters of a form's message a condition quotes."""


@dataclass
class _Rewriter:
    """Rewrites the tags that name open values, in a body and each partial it includes; one per render."""

    left: Open
    forms: Mapping[str, Form]
    fields: Mapping[str, Field]
    labels: dict[str, str] = field(default_factory=dict)
    """The text each rewritten tag prints, by key: the context's `LABELS` (filled as each partial is included)."""
    keys: dict[str, str] = field(default_factory=dict)

    def rewrite(self, body: str) -> str:
        """`body` with every tag naming an open value replaced by an unescaped variable printing its text."""
        pieces: list[str] = []
        opened: list[tuple[str, str | None]] = []  # each section: its label, and the condition it opens when on an open value
        at = 0
        for tag in tags(body):
            replacement: tuple[int, int, str] | None = None
            if tag.sigil in ("#", "^"):
                condition = self._condition(tag.label, tag.sigil == "^")
                opened.append((tag.label, condition))
                if condition is not None:
                    replacement = self._marker(body, tag, condition, opening=True)
            elif tag.sigil == "/" and opened and opened[-1][0] == tag.label:
                _, condition = opened.pop()
                if condition is not None:
                    replacement = self._marker(body, tag, condition, opening=False)
            elif tag.sigil in ("", "&", "{"):
                shown = self._shown(tag.label, opened[-1] if opened else None)
                if shown is not None:
                    replacement = (tag.start, tag.end, shown)
            if replacement is not None:
                start, end, text = replacement
                pieces += [body[at:start], self._variable(tag, text)]
                at = end
        return "".join(pieces) + body[at:]

    def _condition(self, label: str, inverted: bool) -> str | None:
        """What a section on `label` tests, in words, when that is an open value; None for a value known now."""
        name = _field_of(label)
        if name is not None and name in self.left.fields:
            found = self.fields.get(name)
            kind = found.type.name if found is not None else "string"
            many = found is not None and found.type.many
            if many:
                return f"`{name}` is empty" if inverted else f"for each value of `{name}` (each is <{name}> below)"
            if kind == "boolean":
                return f"`{name}` is {'false' if inverted else 'true'}"
            if kind in ("integer", "number"):
                return f"`{name}` is 0 or not given" if inverted else f"`{name}` is given and not 0"
            return f"`{name}` is {'not given' if inverted else 'given'}"
        form, state = _form_of(label)
        if form is None or form not in self.left.forms:
            return None
        asked = f"“{clip(one_line(self.forms[form].message), QUOTED)}”" if form in self.forms else f"form {form}"
        if state == "defaulted":
            return f"the person answers {asked}" if inverted else f"the person leaves {asked} to its defaults"
        return f"the person did not open the link of {asked}" if inverted else f"the person opened the link of {asked}"

    def _shown(self, label: str, section: tuple[str, str | None] | None) -> str | None:
        """What a variable naming an open value prints; None for one known now."""
        name = _field_of(label)
        if label == "." and section is not None and section[1] is not None:
            name = _field_of(section[0])
        if name is not None and name in self.left.fields:
            return f"<{name}>"
        form, state = _form_of(label)
        return f"<whether {form} was {state}>" if form is not None and form in self.left.forms else None

    def _marker(self, body: str, tag: Tag, condition: str, *, opening: bool) -> tuple[int, int, str]:
        """Where a section tag on an open value is replaced, and the words it prints: a line of its own when it stands alone."""
        if _alone(body, tag):
            return tag.start, tag.end, f"**{_opening(condition)}:**" if opening else f"**(end: {_lowered(_opening(condition))})**"
        return tag.start, tag.end, f"[{_lowered(_opening(condition))}: " if opening else "]"

    def _variable(self, tag: Tag, text: str) -> str:
        """An unescaped variable, in the delimiters in force at `tag`, that prints `text` (kept in the labels the context holds)."""
        key = self.keys.setdefault(text, f"t{len(self.keys)}")
        self.labels[key] = text
        opener, closer = tag.delimiters
        return f"{opener}&{LABELS}.{key}{closer}"


def _opening(condition: str) -> str:
    """How a condition opens its text: `If x is given`, `For each value of x`."""
    return condition[0].upper() + condition[1:] if condition.startswith("for each") else f"If {condition}"


def _lowered(text: str) -> str:
    return text[0].lower() + text[1:]


def _alone(body: str, tag: Tag) -> bool:
    """Whether a tag stands alone on its line (only spaces around it), as Mustache's standalone tags do."""
    start = body.rfind("\n", 0, tag.start) + 1
    end = body.find("\n", tag.end)
    return not body[start:tag.start].strip() and not body[tag.end:end if end != -1 else len(body)].strip()


def _field_of(label: str) -> str | None:
    """The field a label names (`kwargs.NAME` or below it), else None."""
    if not label.startswith(render.FIELD_ROOT):
        return None
    return label[len(render.FIELD_ROOT):].split(".")[0] or None


def _form_of(label: str) -> tuple[str | None, str]:
    """The form a label names and what of it (`defaulted` or `opened`), else (None, "")."""
    for root, state in ((render.DEFAULTED_ROOT, "defaulted"), (render.OPENED_ROOT, "opened")):
        if label.startswith(root):
            return label[len(root):].split(".")[0] or None, state
    return None, ""


def finish_open(call: Call, left: Open, active_phase: str | None, *, max_output: int = render.MAX_OUTPUT) -> str:
    """The body of `call` rendered with the values known now, each open value and each branch on one in words."""
    entrypoint, built = call.entrypoint, call.built
    forms = {form.id: form for form in entrypoint.forms.forms}
    fields = {name: found for name, (_, found) in entrypoint.forms.fields.items()}
    rewriter = _Rewriter(left, forms, fields)
    outcome = left.render
    context = render.context(
        kind=entrypoint.kind, name=entrypoint.name, kwargs={**outcome.kwargs, **{name: f"<{name}>" for name in left.fields}},
        args=outcome.args, defaulted=outcome.defaulted, phase=active_phase, phases=built.config.phases, flags=built.config.flags,
        opened=outcome.opened,
    )
    context[LABELS] = rewriter.labels
    parsed = built.parsed(entrypoint.path)
    body = rewriter.rewrite(parsed.body if isinstance(parsed, Parsed) else "")
    partial: Callable[[str], str | None] = lambda name: _rewritten(rewriter, built.partial_body(name))  # noqa: E731
    return render.render(body, context, partial, name=entrypoint.uri, max_output=max_output, indentation=built.indentation(entrypoint.path).cost)


def _rewritten(rewriter: _Rewriter, body: str | None) -> str | None:
    return None if body is None else rewriter.rewrite(body)
