"""Which partials each template includes with `{{>name}}`, the loops among them, and how much text they expand to (C5, C9).

Only the partials a question reaches are read: building one entrypoint looks at
the partials its body names, not at every partial of the docroot. Worker
threads ask one graph at once: each table only gains entries, each computed
outside the lock and added under it (the first added is kept).
"""

import threading
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from guide.errors import Problem
from guide.render import MAX_OUTPUT, WORK_COST, TemplateFacts, handing_cost


@dataclass(frozen=True)
class Expansion:
    """How many characters a template's partials expand to, and the chain of partials that weighs most."""

    size: int
    chain: tuple[str, ...]
    """The heaviest path: the partial the body includes, the partial that one includes, and so on."""


SATURATED = 1 << 64
"""Counts of inclusions stop growing here: far past any cap, and the sums stay small integers."""


@dataclass(frozen=True)
class Indentation:
    """How far the engine may indent each partial a body reaches, and the characters that indenting builds in all.

    mstache indents a standalone `{{>name}}` by copying the whole partial with
    the tag's indentation before each line, before any of it is rendered; inside
    an indented partial, the indentation adds up.
    """

    size: int = 0
    """Characters of indentation with every section rendered once: each inclusion's spaces times the partial's lines."""
    spaces: Mapping[str, int] = field(default_factory=dict)
    """The most spaces each partial can be indented by (only partials that are)."""
    costs: Mapping[str, int] = field(default_factory=dict)
    """What one inclusion of each partial may cost in indentation: its spaces times its lines."""
    chain: tuple[str, ...] = ()
    """The partials from the body to the one whose indentation weighs most."""
    handed: int = 0
    """What handing the engine the indented copies counts beyond the partials' own share (`handing_cost`)."""

    def cost(self, name: str) -> int:
        """What one inclusion of partial `name` may cost in indentation (0 when it is never indented)."""
        return self.costs.get(name, 0)


class PartialGraph:
    """The `{{>name}}` references between the partials of one snapshot, read on demand (it lives as long as the snapshot's build)."""

    def __init__(self, partials: Collection[str], template_of: Callable[[str], TemplateFacts]):
        """`partials`: the names of every partial; `template_of(name)`: what a partial's body says."""
        self.partials = partials
        self.template_of = template_of
        self._refs: dict[str, list[str]] = {}
        self._loops: dict[str, list[str] | None] = {}
        self._sizes: dict[str, tuple[int, str | None]] = {}
        self._lock = threading.Lock()

    def refs(self, name: str) -> list[str]:
        """The existing partials that partial `name` names in its body."""
        found = self._refs.get(name)
        if found is None:
            found = self._note(self._refs, name, [ref for ref, _ in self.template_of(name).partials if ref in self.partials])
        return found

    def reachable(self, names: Iterable[str]) -> list[str]:
        """Every existing partial these names include, directly or through other partials, in the order first met."""
        seen: dict[str, None] = {}
        pending = deque(name for name in names if name in self.partials)
        while pending:
            name = pending.popleft()
            if name not in seen:
                seen[name] = None
                pending.extend(ref for ref in self.refs(name) if ref not in seen)
        return list(seen)

    def expansion(self, facts: TemplateFacts) -> Expansion:
        """How much of the output cap a body takes with every section rendered once and no value printed, as a render counts it.

        That is its text, `WORK_COST` for each lookup and each inclusion, a
        share of a large template each time the engine is handed it
        (`handing_cost`), plus, for each partial, the number of tags that include
        it times the partial's own expansion (a loop adds nothing: it is reported
        on its own). Counted, never rendered: partials that each include the next
        ten times cost eight small sums here, where rendering them would make
        10^8 characters.
        """
        for name, _ in facts.inclusions:
            if name in self.partials:
                self._size(name)
        size, heaviest = self._weigh(facts)
        chain: list[str] = []
        while heaviest is not None and heaviest not in chain:
            chain.append(heaviest)
            heaviest = self._sizes[heaviest][1]
        return Expansion(size, tuple(chain))

    def _size(self, start: str) -> int:
        """A partial's expansion, worked out depth first without recursion (a chain may be thousands of partials long)."""
        pending, open_names = [start], set()
        while pending:
            name = pending[-1]
            if name in self._sizes:
                pending.pop()
            elif name not in open_names:
                open_names.add(name)
                pending.extend(ref for ref in self.refs(name) if ref not in self._sizes and ref not in open_names)
            else:
                pending.pop()
                open_names.discard(name)
                self._note(self._sizes, name, self._weigh(self.template_of(name)))
        return self._sizes[start][0]

    def _weigh(self, facts: TemplateFacts) -> tuple[int, str | None]:
        """What one hand-over of a template counts against the output cap (as `guide.render.render` counts), and its heaviest partial."""
        size = facts.text_length + WORK_COST * facts.lookups + handing_cost(facts.encoded)
        heaviest, weight = None, -1
        for name, count in facts.inclusions:
            size += count * WORK_COST
            if name in self._sizes:  # else it is on the path being worked out: a loop, reported on its own
                part = count * self._sizes[name][0]
                size += part
                heaviest, weight = (name, part) if part > weight else (heaviest, weight)
        return size, heaviest

    def indentation(self, facts: TemplateFacts) -> Indentation:
        """How far each partial this body reaches may be indented, counted over the inclusions without rendering.

        Each partial's spaces are the most along any path from the body (its tag's
        own indentation plus its including partials'); partials on a loop are left
        out (a loop is reported on its own).
        """
        reached = self.reachable(name for name, _ in facts.partials)
        if not reached or not (facts.indents or any(self.template_of(name).indents for name in reached)):
            return Indentation()
        spaces: dict[str, int] = {}
        times: dict[str, int] = {}
        before: dict[str, str | None] = {}
        for including, name, indent, count in self._in_order(facts, reached):
            base, made = (0, 1) if including is None else (spaces.get(including, 0), times.get(including, 0))
            if base + indent > spaces.get(name, -1):
                spaces[name], before[name] = base + indent, including
            times[name] = min(SATURATED, times.get(name, 0) + made * count)
        costs = {name: spaces[name] * self.template_of(name).lines for name in spaces if spaces[name]}
        weights = {name: min(SATURATED, times[name] * cost) for name, cost in costs.items()}
        if not weights:
            return Indentation()
        handed = sum(min(SATURATED, times[name] * _handing_more(self.template_of(name).encoded, cost)) for name, cost in costs.items())
        heaviest: str | None = max(weights, key=weights.__getitem__)
        chain: list[str] = []
        while heaviest is not None and heaviest not in chain:
            chain.append(heaviest)
            heaviest = before[heaviest]
        spaced = {name: value for name, value in spaces.items() if value}
        return Indentation(min(SATURATED, sum(weights.values())), spaced, costs, tuple(reversed(chain)), handed)

    def _in_order(self, facts: TemplateFacts, reached: list[str]) -> Iterable[tuple[str | None, str, int, int]]:
        """Each inclusion (includer, partial, its tag's most spaces, how many tags), includers before what they include."""
        edges: dict[str | None, list[tuple[str, int, int]]] = {}
        waiting = dict.fromkeys(reached, 0)
        for including in (None, *reached):
            found = facts if including is None else self.template_of(including)
            indents: dict[str, int] = {}
            for name, indent, _ in found.indents:
                indents[name] = max(indents.get(name, 0), indent)
            edges[including] = [(name, indents.get(name, 0), count) for name, count in found.inclusions if name in waiting]
            for name, _, _ in edges[including]:
                waiting[name] += 1
        ready: deque[str | None] = deque([None])
        while ready:
            including = ready.popleft()
            for name, indent, count in edges[including]:
                yield including, name, indent, count
                waiting[name] -= 1
                if not waiting[name]:
                    ready.append(name)

    def loop_through(self, names: Iterable[str]) -> list[str] | None:
        """A loop that rendering these names would enter (its names, the first repeated at the end), if any."""
        return next((loop for name in names if name in self.partials and (loop := self._loop_from(name))), None)

    def _loop_from(self, start: str) -> list[str] | None:
        if start in self._loops:
            return self._loops[start]
        trail: list[str] = [start]
        stack = [iter(self.refs(start))]
        on_trail = {start}
        found = None
        while stack and found is None:
            ref = next(stack[-1], None)
            if ref is None:
                stack.pop()
                self._note(self._loops, trail.pop(), None)  # everything below it was explored: no loop from there
                on_trail = set(trail)
            elif ref in on_trail:
                found = trail[trail.index(ref):] + [ref]
            elif ref in self._loops:
                found = self._loops[ref]  # explored before: its loop, or None (then nothing more to see there)
            else:
                trail.append(ref)
                on_trail.add(ref)
                stack.append(iter(self.refs(ref)))
        on_loop = next((name for name in trail if found and name in found), None)
        return self._note(self._loops, start, _starting_at(found, on_loop) if found and on_loop else found)

    def _note(self, table: dict, key: str, value: Any) -> Any:
        """Add `value` to `table` under the lock unless another thread added one first; the value kept."""
        with self._lock:
            return table.setdefault(key, value)


def expansion_problem(
    path: str, body_line: int, facts: TemplateFacts, expansion: Expansion, indentation: Indentation = Indentation(), cap: int = MAX_OUTPUT,
) -> Problem | None:
    """The error of an entrypoint that takes more of the output cap than it has before any value is printed (C9).

    What is counted is what a render counts (`guide.render.render`): text, work
    and the indentation the engine builds for indented partials, once as it
    builds the copy and once as it prints it. So a read of an entrypoint this
    passes does not stop at the cap unless values print more or loop.
    """
    size = expansion.size + 2 * indentation.size + indentation.handed
    if size <= cap:
        return None
    if indentation.chain and 2 * indentation.size >= expansion.size:
        return _indented_too_much(path, body_line, facts, indentation, size, cap)
    if expansion.chain:
        first = expansion.chain[0]
        message = (
            f"`{{{{>{first}}}}}` expands to about {size:,} characters through partials {' -> '.join(expansion.chain)},"
            f" past the output cap of {cap:,}, so every read would stop there ({COUNTED}); include fewer partials, or each fewer times"
        )
        return Problem(path=path, line=body_line + dict(facts.partials)[first] - 1, message=message)
    message = (
        f"the body counts about {size:,} characters against the output cap of {cap:,}, so every read would stop there ({COUNTED});"
        " look up fewer names, or split it"
    )
    return Problem(path=path, line=body_line, message=message)


COUNTED = (f"a render counts text, {WORK_COST} for each lookup and each partial included, and an eighth of the bytes of a template"
           " over 256 KiB each time it is included")
"""How an expansion error says what the render counts."""


def _indented_too_much(path: str, body_line: int, facts: TemplateFacts, indentation: Indentation, size: int, cap: int) -> Problem:
    """The error of an entrypoint whose partials are indented past the output cap: the tag that indents most."""
    first, last = indentation.chain[0], indentation.chain[-1]
    lines = indentation.costs[last] // indentation.spaces[last]
    message = (
        f"`{{{{>{first}}}}}` expands to about {size:,} characters, {2 * indentation.size:,} of them indentation (built, then printed):"
        f" partial {last} ({lines:,} lines) is indented {indentation.spaces[last]:,} spaces{_through(indentation.chain)},"
        f" past the output cap of {cap:,}, so every read would stop there; indent the tags less, or include shorter partials"
    )
    tags = [(indent, -line) for name, indent, line in facts.indents if name == first]  # the most indented, the first of those
    return Problem(path=path, line=body_line + (-max(tags)[1] if tags else dict(facts.partials)[first]) - 1, message=message)


def _handing_more(encoded: int, indentation: int) -> int:
    """What an indented copy of a template counts when handed to the engine, beyond the template itself."""
    return handing_cost(encoded + indentation) - handing_cost(encoded)


def _through(chain: tuple[str, ...]) -> str:
    return f" through partials {' -> '.join(chain)}" if len(chain) > 1 else ""


def _starting_at(loop: list[str], name: str) -> list[str]:
    """The same loop, told from `name` (the first name repeated at the end)."""
    names = loop[:-1]
    index = names.index(name)
    names = names[index:] + names[:index]
    return names + names[:1]
