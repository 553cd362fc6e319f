"""Which partials each template includes with `{{>name}}`, and the loops among them (C5, C9).

Only the partials a question reaches are read: building one entrypoint looks at
the partials its body names, not at every partial of the docroot.
"""

from collections import deque
from collections.abc import Callable, Collection, Iterable

from guide.render import TemplateFacts


class PartialGraph:
    """The `{{>name}}` references between the partials of one snapshot, read on demand (it lives as long as the snapshot's build)."""

    def __init__(self, partials: Collection[str], template_of: Callable[[str], TemplateFacts]):
        """`partials`: the names of every partial; `template_of(name)`: what a partial's body says."""
        self.partials = partials
        self.template_of = template_of
        self._refs: dict[str, list[str]] = {}
        self._loops: dict[str, list[str] | None] = {}

    def refs(self, name: str) -> list[str]:
        """The existing partials that partial `name` names in its body."""
        if name not in self._refs:
            self._refs[name] = [ref for ref, _ in self.template_of(name).partials if ref in self.partials]
        return self._refs[name]

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
                self._loops.setdefault(trail.pop(), None)  # everything below it was explored: no loop from there
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
        self._loops[start] = found = _starting_at(found, on_loop) if found and on_loop else found
        return found


def _starting_at(loop: list[str], name: str) -> list[str]:
    """The same loop, told from `name` (the first name repeated at the end)."""
    names = loop[:-1]
    index = names.index(name)
    names = names[index:] + names[:index]
    return names + names[:1]
