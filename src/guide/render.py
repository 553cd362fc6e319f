"""Mustache rendering of entrypoints and the template context (C9).

Rendering is standard Mustache: `{{x}}` escapes &, <, > and " as the spec
says, and `{{{x}}}` or `{{&x}}` inserts a value verbatim. Tokenized templates
are kept in Guide's cache (`guide.compiled`); partials come only from the docroot
snapshot, never from disk during a render, and values are never read as templates.

Hostile input: a template is refused before the engine tokenizes it when its
sections nest deeper than `MAX_NESTING` (mstache copies each section's inner
text into its closing token, so depth multiplies the text it holds), and the
engine is given Guide's own cache, bounded by size (`guide.compiled`), never its
process-wide one. A render is bounded while it runs, not after. It stops with
`RenderTooLarge` once it passes its output cap of `max_output` characters
(partials that each include the next ten times reach 10^8 characters in eight
levels). Work counts towards the cap too: each lookup and each partial
inclusion as `WORK_COST` characters, each loop item as one, so a template that
loops or includes without printing anything stops as well. Measured, a lookup
or an inclusion takes about 5 us and a loop item 0.3 us: a capped render of
1 MiB ends within about a second, holding at most the cap in text.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import mstache

from guide import mustache_tags
from guide.compiled import TEMPLATES
from guide.errors import GuideError
from guide.mustache_tags import Tag, with_lines
from guide.text import clip, template_text

_LOCATION = re.compile(r"\s*at line (\d+) column \d+")
_INDENTED = re.compile(r"^(?!$)", re.MULTILINE)
"""Where the engine puts a standalone partial's indentation: the start of every line that is not empty."""
_QUOTED = re.compile(r"""(['"])(.*)\1""", re.DOTALL)
TAG_QUOTE = 80
"""The most characters of a tag an error message quotes."""
PARTIAL_DEPTH = 64
"""How deeply partials may include partials while rendering; authoring checks refuse loops long before."""
MAX_NESTING = 64
"""How deeply sections may nest in one template. mstache keeps a copy of each section's inner text, so a template
holds at most this many times its own text once tokenized (15,000 levels in 180 KB had taken 1.3 GB)."""
MAX_OUTPUT = 1024 * 1024
"""The output cap: the most characters one render may produce (1 MiB of text), its work included."""
FIELD_ROOT = "kwargs."
DEFAULTED_ROOT = "elicitation.defaulted_forms."
OPENED_ROOT = "elicitation.opened."
PHASE_ROOT = "workflow"
"""The root of `workflow.phase` and `workflow.phases` in the template context."""
REFERENCE_ROOTS = (FIELD_ROOT, DEFAULTED_ROOT, OPENED_ROOT)
"""The context names (C9) whose members a body reference may misname: fields and form ids."""
WORK_COST = 8
"""How many characters of the output cap one lookup or one partial inclusion counts as."""
LARGE_TEMPLATE = 256 * 1024
"""A template of more characters may weigh too much once tokenized to be kept (`guide.compiled`): the engine tokenizes it
again each time it is included. Each time, it counts one character of the output cap per `TEXT_SHARE` of its own, so
a render cannot tokenize a large partial that prints nothing thousands of times."""
TEXT_SHARE = 8
_VALUE_SIGILS = ("", "&", "{", "#", "^")
"""Tags that look a name up: variables (escaped or not), sections and inverted sections."""


@dataclass(frozen=True)
class TemplateFacts:
    """What a template body says about itself: its syntax error, if any, the partials it includes and the names it looks up."""

    problem: tuple[int, str] | None
    """The line (within the body) and message of a Mustache syntax error."""
    partials: tuple[tuple[str, int], ...]
    """Each `{{>name}}` tag: the partial's name and the line (within the body) it is first named on."""
    references: tuple[tuple[str, int], ...] = ()
    """Each name under `REFERENCE_ROOTS` a variable or section looks up (`kwargs.issue`), with the line it is first on."""
    inclusions: tuple[tuple[str, int], ...] = ()
    """Each partial with the number of `{{>name}}` tags that include it."""
    text_length: int = 0
    """How many characters of the body are text outside tags."""
    indents: tuple[tuple[str, int, int], ...] = ()
    """Each standalone `{{>name}}` tag the engine indents: the partial's name, the spaces it is indented by and its line."""
    lines: int = 0
    """How many lines of the body are not empty: the engine indents each of them when it indents an inclusion."""
    roots: frozenset[str] = frozenset()
    """The first part of every name a variable or section looks up (`kwargs` for `kwargs.issue`)."""
    wide: bool = False
    """Whether it can print every keyword: it looks up `kwargs` itself, or `.` outside any section."""


class RenderLoop(GuideError):
    """Partials included each other deeper than `PARTIAL_DEPTH` while rendering."""


class RenderTooLarge(GuideError):
    """A render passed its output cap and was stopped."""


class TemplateError(GuideError):
    """A template met while rendering cannot be rendered: its sections nest past `MAX_NESTING`, or a partial has a syntax error."""


def inspect(body: str) -> TemplateFacts:
    """Tokenize a body once: its syntax error, or the partials it includes, the names it looks up and how it indents partials.

    Sections nested past `MAX_NESTING` are an error found by Guide's own tag
    scan, before the engine tokenizes anything.
    """
    tags = list(with_lines(body, mustache_tags.tags(body)))  # scanned once: for the nesting first, then for the facts
    too_deep = _too_deep(body, tags)
    if too_deep is not None:
        return TemplateFacts(too_deep, ())
    try:
        # A throwaway cache: checking every file must not evict the templates being served.
        tokens = mstache.tokenize(body.encode(), strict=True, cache={})[1]
    except mstache.SectionException as error:
        return TemplateFacts(_section_problem(body) or _engine_problem(error), ())
    except mstache.TokenException as error:
        return TemplateFacts(_engine_problem(error), ())
    partials: dict[str, int] = {}
    counts: dict[str, int] = {}
    references: dict[str, int] = {}
    roots: set[str] = set()
    indents, wide, depth, tag_length = [], False, 0, 0
    # The engine's partial tokens (a, b, c = True, False, False) carry the indentation it will give the partial, in tag order.
    partial_indents = iter([len(token[4]) for token in tokens if token[0] and not token[1] and not token[2]])
    for tag, line in tags:
        tag_length += tag.end - tag.start
        outside = not depth
        if tag.sigil == ">":
            partials.setdefault(tag.label, line)
            counts[tag.label] = counts.get(tag.label, 0) + 1
            if indent := next(partial_indents, 0):
                indents.append((tag.label, indent, line))
        elif tag.sigil == "/" and depth:
            depth -= 1
        elif tag.sigil in _VALUE_SIGILS:
            depth += tag.sigil in ("#", "^")
            roots.add(tag.label.split(".")[0] if tag.label != "." else ".")
            wide = wide or tag.label == "kwargs" or (tag.label == "." and outside)
            if tag.label.startswith(REFERENCE_ROOTS):
                references.setdefault(tag.label, line)
    return TemplateFacts(
        None, tuple(partials.items()), tuple(references.items()), tuple(counts.items()), len(body) - tag_length,
        tuple(indents), len(_INDENTED.findall(body)), frozenset(roots), wide,
    )


def nesting_problem(body: str) -> tuple[int, str] | None:
    """The line and message of the first section that nests deeper than `MAX_NESTING`, found without the engine."""
    return _too_deep(body, with_lines(body, mustache_tags.tags(body)))


def _too_deep(body: str, tags: Iterable[tuple[Tag, int]]) -> tuple[int, str] | None:
    depth = 0
    for tag, line in tags:
        if tag.sigil in ("#", "^"):
            depth += 1
            if depth > MAX_NESTING:
                message = f"template error: `{_text_of(body, tag)}` nests sections {depth} deep, past the limit of {MAX_NESTING};"
                return line, f"{message} close some sections first, or move the inner part into a partial"
        elif tag.sigil == "/" and depth:
            depth -= 1
    return None


def _engine_problem(error: mstache.TokenException) -> tuple[int, str]:
    found = _LOCATION.search(str(error))
    # The engine quotes the tag with its line ending spelled out as a backslash and an n.
    message = _LOCATION.sub("", str(error)).replace("\\n", "").replace("\n", " ")
    message = _QUOTED.sub(lambda quote: f"'{clip(quote.group(2), TAG_QUOTE)}'", message)  # an unclosed tag may run to the end of the file
    return (int(found.group(1)) if found else 1), f"template error: {message}"


def _section_problem(body: str) -> tuple[int, str] | None:
    """Where sections fail to pair: the line of a stray closing tag, or of the innermost section never closed.

    The engine's own report of an unclosed section can name an empty tag at the
    line of a later section, so the tags are paired here again.
    """
    opened: list[tuple[Tag, int]] = []
    for tag, line in with_lines(body, mustache_tags.tags(body)):
        if tag.sigil in ("#", "^"):
            opened.append((tag, line))
        elif tag.sigil == "/" and opened and opened[-1][0].label == tag.label:
            opened.pop()
        elif tag.sigil == "/":
            inside = f"; the innermost open section is `{_text_of(body, opened[-1][0])}`" if opened else ""
            return line, f"template error: Unopened section `{_text_of(body, tag)}`: it closes no open section{inside}"
    if not opened:
        return None
    tag, line = opened[-1]
    closing = clip(f"{tag.delimiters[0]}/{tag.label}{tag.delimiters[1]}", TAG_QUOTE)
    return line, f"template error: Unclosed section `{_text_of(body, tag)}`: it is opened here and never closed; end it with `{closing}`"


def _text_of(body: str, tag: Tag) -> str:
    return clip(body[tag.start:tag.end], TAG_QUOTE)


def render(
    body: str,
    context: Mapping[str, Any],
    partial: Callable[[str], str | None],
    *,
    name: str = "the template",
    max_output: int = MAX_OUTPUT,
    indentation: Callable[[str], int] | None = None,
) -> str:
    """Render a template with standard Mustache; `{{>name}}` renders `partial(name)` (nothing when it gives None).

    The render stops with `RenderTooLarge`, naming `name` and the cap, as soon as
    its text and work would pass `max_output` characters. `indentation(partial)`
    is what the engine's indenting of one inclusion may cost (spaces times
    lines): it is counted before the engine builds the indented copy. A body or
    partial whose sections nest past `MAX_NESTING` stops it with `TemplateError`
    before the engine tokenizes it, as does a partial with a syntax error.
    """
    budget = _Budget(name, max_output, indentation)
    chunks: list[str] = []
    try:
        for chunk in mstache.stream(
            body, context, resolver=budget.resolver(partial), getter=budget.getter,
            stringify=_stringify, strict=True, recursion_limit=PARTIAL_DEPTH, cache=_Checked(budget),
        ):
            budget.spend(len(chunk))
            chunks.append(chunk)
    except mstache.TemplateRecursionError:
        raise RenderLoop(f"partials include each other more than {PARTIAL_DEPTH} levels deep; guide check names the loop") from None
    except mstache.TokenException as error:  # the body was checked before: a partial's syntax error
        line, message = _engine_problem(error)
        raise budget.refused(line, message) from None
    return "".join(chunks)


class _Budget:
    """What is left of one render's output cap: text spends its length, work `WORK_COST` per lookup or inclusion, 1 per loop item."""

    def __init__(self, name: str, cap: int, indentation: Callable[[str], int] | None = None):
        self.name = name
        self.cap = cap
        self.left = cap
        self.indentation = indentation
        self.including: str | None = None
        """The partial last included: the next template the engine tokenizes is its body."""

    def spend(self, characters: int) -> None:
        """Count text or work against the cap; past it, stop the render."""
        self.left -= characters
        if self.left < 0:
            raise RenderTooLarge(f"{self.name}: rendering stopped at the output cap of {self.cap:,} characters (lookups, loops and partials count too)")

    def refused(self, line: int, message: str) -> "TemplateError":
        """The error of a render stopped at a template it cannot render: the partial last included, else the body."""
        what = f"partial {self.including}" if self.including is not None else "its body"
        return TemplateError(f"{self.name}: {what}, line {line}: {message.removeprefix('template error: ')}; guide check names the file")

    def getter(self, scope: Any, scopes: Any, key: Any, default: Any = None) -> Any:
        """The engine's strict lookup, at `WORK_COST`; a list comes back counting the items a loop takes from it.

        A name the engine finds as a method (`{{kwargs.get}}`, `{{flags.tags.clear}}`) counts as missing: the engine
        would call it, failing the read or changing a value every later read shares.
        """
        self.spend(WORK_COST)
        value = mstache.default_strict_getter(scope, scopes, key, default)
        if callable(value):
            return default
        return _Counted(value, self) if isinstance(value, (list, tuple)) else value

    def resolver(self, partial: Callable[[str], str | None]) -> Callable[[str], str | None]:
        """`partial`, at `WORK_COST` per inclusion plus what indenting it may cost."""

        def resolve(name: str) -> str | None:
            self.spend(WORK_COST)
            found = partial(name)
            cost = self.indentation(name) if found is not None and self.indentation is not None else 0
            if cost > self.left:
                raise RenderTooLarge(
                    f"{self.name}: rendering stopped at the output cap of {self.cap:,} characters: partial {name} as indented here"
                    f" would be copied with up to {cost:,} characters of indentation first; guide check names the tag"
                )
            self.spend(cost)
            self.including = name
            return found

        return resolve


class _Checked:
    """The cache one render hands the engine: Guide's shared `TEMPLATES`, and a template it has not seen is checked first.

    The engine looks a template up here before it tokenizes it, so a body or
    partial nested past `MAX_NESTING` stops the render before the engine's work.
    """

    def __init__(self, budget: _Budget):
        self.budget = budget

    def get(self, key: Any, default: Any = None) -> Any:
        """The kept tokens of a template, else `default` once the template's nesting is checked; a large one counts against the cap."""
        if len(key[0]) > LARGE_TEMPLATE:
            self.budget.spend(len(key[0]) // TEXT_SHARE)
        found = TEMPLATES.get(key)
        if found is None:
            problem = nesting_problem(key[0].decode("utf-8", "replace"))
            if problem is not None:
                raise self.budget.refused(*problem)
        return found if found is not None else default

    def __setitem__(self, key: Any, value: Any) -> None:
        TEMPLATES[key] = value


class _Counted:
    """A list as a section loops over it: each item taken counts one character against the cap."""

    __slots__ = ("items", "budget")

    def __init__(self, items: list | tuple, budget: _Budget):
        self.items = items
        self.budget = budget

    def __bool__(self) -> bool:
        return bool(self.items)

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.budget.spend(1)
            yield item


def context(
    *,
    kind: str,
    name: str,
    kwargs: Mapping[str, Any],
    args: Iterable[str],
    defaulted: Iterable[str],
    phase: str | None,
    phases: Iterable[str],
    flags: Mapping[str, Any],
    opened: Iterable[str] = (),
) -> dict[str, Any]:
    """The template context of an entrypoint render."""
    return {
        "kwargs": dict(kwargs),
        "args": list(args),
        "elicitation": {"defaulted_forms": {form: True for form in defaulted}, "opened": {form: True for form in opened}},
        kind: {"name": name},
        "workflow": {"phase": phase, "phases": list(phases)},
        "flags": dict(flags),
    }


def _stringify(value: Any, text: bool) -> bytes:
    if isinstance(value, _Counted):
        value = value.items
    return value if isinstance(value, bytes) else template_text(value).encode()
