"""Which partials each template includes with `{{>name}}`, and the loops among them (C5, C9)."""

from collections.abc import Iterable, Mapping
from functools import cached_property

from guide.docroot.sources import Source


class PartialGraph:
    """The `{{>name}}` references between the partials of one snapshot."""

    def __init__(self, partials: Mapping[str, Source]):
        self.partials = partials
        self.edges = {name: [ref for ref, _ in source.template.partials] for name, source in partials.items()}

    @cached_property
    def loops(self) -> dict[str, list[str]]:
        """Each partial that lies on a loop, with the loop as names (the first name repeated at the end)."""
        found: dict[str, list[str]] = {}
        state: dict[str, str] = {}
        for start in sorted(self.edges):
            if start in state:
                continue
            trail: list[str] = []
            stack = [(start, iter(self.edges[start]))]
            state[start] = "open"
            trail.append(start)
            while stack:
                name, refs = stack[-1]
                ref = next((ref for ref in refs if ref in self.edges), None)
                if ref is None:
                    state[name] = "done"
                    stack.pop()
                    trail.pop()
                elif state.get(ref) == "open":
                    loop = trail[trail.index(ref):] + [ref]
                    for member in loop[:-1]:
                        found.setdefault(member, loop[loop.index(member):] + loop[1:loop.index(member) + 1])
                elif ref not in state:
                    state[ref] = "open"
                    trail.append(ref)
                    stack.append((ref, iter(self.edges[ref])))
        return found

    def reachable(self, names: Iterable[str]) -> list[str]:
        """Every existing partial these names include, directly or through other partials, in the order first met."""
        seen: dict[str, None] = {}
        pending = [name for name in names if name in self.edges]
        while pending:
            name = pending.pop(0)
            if name not in seen:
                seen[name] = None
                pending += [ref for ref in self.edges[name] if ref in self.edges and ref not in seen]
        return list(seen)

    def loop_through(self, names: Iterable[str]) -> list[str] | None:
        """A loop that rendering these names would enter, if any."""
        return next((self.loops[name] for name in self.reachable(names) if name in self.loops), None)
