"""Entrypoints: commands and skills with their checked frontmatter and effective forms (C4, C5).

`build` gathers an entrypoint's effective forms and, when first asked, checks
the file in the light of the rest of the docroot (its partials, guide.yaml);
`partial_report` checks a partial file on its own.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from guide import address
from guide.docroot import references
from guide.docroot.config import Config
from guide.docroot.frontmatter import FrontmatterError, Parsed, locate
from guide.docroot.keys import key_issues
from guide.docroot.partials import PartialGraph
from guide.docroot.sources import Source
from guide.errors import Issue, Problem
from guide.forms.combine import combine
from guide.forms.declare import EMPTY, FormSet, declared_names
from guide.spelling import near_miss

Kind = Literal["command", "skill"]


@dataclass(frozen=True)
class Surroundings:
    """What building one file needs to know of the rest of the docroot."""

    partials: Mapping[str, Source]
    config: Config
    config_ok: bool = True
    graph: PartialGraph = field(default_factory=lambda: PartialGraph({}))


Checks = Callable[[], tuple[tuple[Problem, ...], tuple[Problem, ...]]]


@dataclass(frozen=True)
class Entrypoint:
    """A command or skill ready to serve; unusable while it has problems. Notes never stop it.

    Its problems and notes are found when first asked for: a listing needs only
    the forms, and checking every body would cost a large docroot's first listing
    a sixth of its time.
    """

    kind: Kind
    name: str
    path: str
    meta: Mapping[str, Any]
    body: str
    forms: FormSet
    checks: Checks = field(repr=False, compare=False)

    @cached_property
    def _found(self) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
        return self.checks()

    @property
    def problems(self) -> tuple[Problem, ...]:
        """What makes it unusable (authoring errors), found on first use."""
        return self._found[0]

    @property
    def notes(self) -> tuple[Problem, ...]:
        """What `guide check` reports without failing."""
        return self._found[1]

    @cached_property
    def uri(self) -> str:
        """Its address: `guide://_name` for a command, `guide://$name` for a skill."""
        return address.command_address(self.name) if self.kind == "command" else address.skill_address(self.name)

    @property
    def description(self) -> str:
        """The one-line description from frontmatter (empty when none)."""
        return str(self.meta.get("description", ""))

    def listed(self, key: str) -> tuple[str, ...]:
        """A list-valued frontmatter key such as `aliases`, `args` or `argrequired`."""
        value = self.meta.get(key)
        return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def build(kind: Kind, name: str, source: Source, around: Surroundings) -> Entrypoint:
    """Gather an entrypoint's effective forms from itself and its included partials; its checks run when first asked for."""
    parsed = source.parsed
    if isinstance(parsed, FrontmatterError):
        unreadable = (Problem(path=source.path, line=parsed.line, message=str(parsed)),)
        return Entrypoint(kind, name, source.path, {}, "", EMPTY, lambda: (unreadable, ()))
    meta = parsed.meta
    own_forms, issues = source.declared(kind == "command", around.config.phases)
    forms, names, issues = list(own_forms), declared_names(meta.get("elicitation")), list(issues)
    sources, problems = {source.path: source}, []
    includes = [item for item in meta.get("includes") or () if isinstance(item, str)] if isinstance(meta.get("includes"), list) else []
    for include in includes:
        partial = around.partials.get(include)
        if partial is None:
            message = f"`includes` names unknown partial {include!r}{_did_you_mean(include, around.partials)}"
            issues.append(Issue(origin=source.path, keys=("includes",), message=message))
        elif isinstance(partial.parsed, FrontmatterError):
            problems.append(Problem(path=partial.path, line=partial.parsed.line, message=str(partial.parsed)))
        elif around.config.allows(partial.parsed.meta):
            sources[partial.path] = partial
            partial_forms, partial_issues = partial.declared(kind == "command", around.config.phases)
            forms += partial_forms
            issues += partial_issues
            names |= declared_names(partial.parsed.meta.get("elicitation"))
    form_set, combine_issues = combine(forms, names)
    issues += combine_issues

    def checks() -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
        found, note_issues = key_issues(kind, source.path, meta, around.config, around.config_ok)
        if kind == "skill" and "name" in meta and meta["name"] != name:
            found.append(Issue(origin=source.path, keys=("name",), message=f"skill `name` {meta['name']!r} must equal its folder name {name!r}"))
        found += issues
        for arg in [item for item in meta.get("args") or () if isinstance(item, str)] if isinstance(meta.get("args"), list) else []:
            if arg not in names:  # a field of a form with its own error is not reported missing again
                found.append(Issue(origin=source.path, keys=("args",), field=arg, message=f"`args` names {arg!r}, which no form declares"))
        body_problems, body_notes = _body_report(source, around, set(includes))
        reference_problems, reference_notes = references.report(source, includes, around.partials, around.graph)
        every = problems + [_locate(issue, sources) for issue in found] + body_problems + reference_problems
        return tuple(every), tuple([_locate(issue, sources) for issue in note_issues] + body_notes + reference_notes)

    return Entrypoint(kind, name, source.path, meta, parsed.body, form_set, checks)


def partial_report(source: Source, around: Surroundings) -> tuple[list[Problem], list[Problem]]:
    """A partial's own problems and notes, whether or not anything includes it or its `requires-*` hold.

    Checks that need the including entrypoint (duplicates, `when` targets) are
    made when an entrypoint is built.
    """
    if isinstance(source.parsed, FrontmatterError):
        return [Problem(path=source.path, line=source.parsed.line, message=str(source.parsed))], []
    errors, notes = key_issues("partial", source.path, source.parsed.meta, around.config, around.config_ok)
    _, issues = source.declared(True, around.config.phases)
    body_problems, _ = _body_report(source, around, set())
    problems = [_locate(issue, {source.path: source}) for issue in [*errors, *issues]] + body_problems
    return problems, [_locate(issue, {source.path: source}) for issue in notes]


def _body_report(source: Source, around: Surroundings, includes: set[str]) -> tuple[list[Problem], list[Problem]]:
    """The body's syntax error, `{{>name}}` tags naming no partial or starting a loop, and partials whose forms are not asked."""
    parsed = source.parsed
    assert isinstance(parsed, Parsed)
    template = source.template

    def at(line: int, message: str) -> Problem:
        return Problem(path=source.path, line=parsed.body_line + line - 1, message=message)

    if template.problem is not None:
        return [at(*template.problem)], []
    problems, notes = [], []
    for name, line in template.partials:
        if name not in around.partials:
            problems.append(at(line, f"`{{{{>{name}}}}}` names no partial{_did_you_mean(name, around.partials)}"))
            continue
        loop = around.graph.loop_through([name])
        if loop:
            problems.append(at(line, f"`{{{{>{name}}}}}` enters a loop of partials that include each other: {' -> '.join(loop)}"))
            continue
        for reached in around.graph.reachable([name]):
            if reached not in includes and _asks(around.partials[reached], around.config):
                message = f"`{{{{>{name}}}}}` renders partial {reached}, whose forms are not asked here (its values render empty)"
                message += f"; add {reached!r} to `includes`"
                notes.append(at(line, message))
    return problems, notes


def alias_problems(commands: Mapping[str, Source]) -> list[Problem]:
    """Aliases that name another command or another command's alias (checked across every command, by `guide check`).

    The command itself still serves by its name; only the alias cannot work.
    """
    owners: dict[str, str] = {}
    clashes: dict[str, list[str]] = {}
    for name, source in sorted(commands.items()):
        if not source.may_mention("aliases") or isinstance(source.parsed, FrontmatterError):
            continue
        aliases = source.parsed.meta.get("aliases")
        for alias in aliases if isinstance(aliases, list) else ():
            if not isinstance(alias, str):
                continue
            if alias in commands and alias != name:
                clashes.setdefault(name, []).append(f"alias {alias!r} is the name of another command; a name always wins, so the alias never works")
            elif alias in owners and owners[alias] != name:
                clashes.setdefault(name, []).append(f"alias {alias!r} is also an alias of command {owners[alias]!r}; rename one of them")
            else:
                owners.setdefault(alias, name)
    sources = {commands[name].path: commands[name] for name in clashes}
    issues = [Issue(origin=commands[name].path, keys=("aliases",), message=message) for name, messages in clashes.items() for message in messages]
    return [_locate(issue, sources) for issue in issues]


def _asks(partial: Source, config: Config) -> bool:
    parsed = partial.parsed
    return isinstance(parsed, Parsed) and bool(parsed.meta.get("elicitation")) and config.allows(parsed.meta)


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    found = near_miss(name, known)
    return f"; did you mean {found!r}?" if found else ""


def _locate(issue: Issue, sources: Mapping[str, Source]) -> Problem:
    parsed = sources[issue.origin].parsed
    line = locate(parsed.yaml_text, issue.keys, parsed.first_line) if isinstance(parsed, Parsed) else None
    return Problem(path=issue.origin, line=line, form=issue.form, field=issue.field, message=issue.message)
