"""Entrypoints: commands and skills with their checked frontmatter and effective forms (C4, C5)."""

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from guide import address
from guide.docroot.config import REQUIRES, Config
from guide.docroot.frontmatter import FrontmatterError, Parsed, locate, split
from guide.errors import Issue, Problem
from guide.forms.combine import combine
from guide.forms.declare import EMPTY, Form, FormSet, declare_forms, declared_names
from guide.render import template_problem

Kind = Literal["command", "skill"]
SHARED_KEYS = frozenset({"description", "includes", "elicitation", "fallback"})
KEYS = {
    "command": SHARED_KEYS | {"aliases", "usage", "examples", "argrequired", "args"},
    "skill": SHARED_KEYS | {"name", "license", "compatibility", "metadata", "allowed-tools"},
}
TEXT_KEYS = ("description", "usage", "name")
LIST_KEYS = ("aliases", "examples", "argrequired", "args", "includes")


@dataclass(frozen=True)
class Source:
    """One template file of the docroot: its relative path and text, parsed on first use."""

    path: str
    text: str | None
    unreadable: str = "file cannot be read as UTF-8 text"
    """Why `text` is None, when it is."""

    @cached_property
    def parsed(self) -> Parsed | FrontmatterError:
        """The frontmatter and body, or why they cannot be read."""
        if self.text is None:
            return FrontmatterError(self.unreadable, None)
        try:
            return split(self.text)
        except FrontmatterError as error:
            return error

    def declared(self, allow_source: bool, phases: tuple[str, ...]) -> tuple[tuple[Form, ...], tuple[Issue, ...]]:
        """The forms this parsed file declares, with their problems (kept: many entrypoints may include one partial)."""
        key = (allow_source, phases)
        if key not in self._declared:
            meta = self.parsed.meta
            forms, issues = declare_forms(
                meta.get("elicitation"), origin=self.path, fallback_all=meta.get("fallback"), allow_source=allow_source, phases=phases
            )
            self._declared[key] = (tuple(forms), tuple(issues))
        return self._declared[key]

    @cached_property
    def _declared(self) -> dict[tuple[bool, tuple[str, ...]], tuple[tuple[Form, ...], tuple[Issue, ...]]]:
        return {}

    def may_mention(self, word: str) -> bool:
        """False only when the file surely does not contain `word` (a check that needs no parse)."""
        return self.text is None or word in self.text


@dataclass(frozen=True)
class Entrypoint:
    """A command or skill ready to serve; unusable while it has problems."""

    kind: Kind
    name: str
    path: str
    meta: Mapping[str, Any]
    body: str
    forms: FormSet
    problems: tuple[Problem, ...]

    @property
    def uri(self) -> str:
        """Its address: `guide://_name` for a command, `guide://$name` for a skill."""
        return address.command_address(self.name) if self.kind == "command" else address.skill_address(self.name)

    @property
    def description(self) -> str:
        """The one-line description from frontmatter (empty when none)."""
        return str(self.meta.get("description", ""))

    def listed(self, key: str) -> tuple[str, ...]:
        """A list-valued frontmatter key such as `aliases`, `args` or `argrequired`."""
        return tuple(_listed(self.meta.get(key)))  # a mistyped value is an authoring problem, read here as empty


def build(kind: Kind, name: str, source: Source, partials: Mapping[str, Source], config: Config) -> Entrypoint:
    """Check an entrypoint file and gather its effective forms from itself and its included partials."""
    if isinstance(source.parsed, FrontmatterError):
        problem = Problem(path=source.path, line=source.parsed.line, message=str(source.parsed))
        return Entrypoint(kind, name, source.path, {}, "", EMPTY, (problem,))
    parsed = source.parsed
    meta = parsed.meta
    sources = {source.path: source}
    issues = list(_key_issues(kind, name, source.path, meta))
    own_forms, own_issues = source.declared(kind == "command", config.phases)
    forms = list(own_forms)
    issues += own_issues
    names = declared_names(meta.get("elicitation"))
    problems: list[Problem] = []
    for include in _listed(meta.get("includes")):
        partial = partials.get(include)
        if partial is None:
            issues.append(Issue(origin=source.path, keys=("includes",), message=f"`includes` names unknown partial {include!r}"))
            continue
        if isinstance(partial.parsed, FrontmatterError):
            problems.append(Problem(path=partial.path, line=partial.parsed.line, message=str(partial.parsed)))
            continue
        if not config.allows(partial.parsed.meta):
            continue
        sources[partial.path] = partial
        partial_forms, partial_issues = partial.declared(kind == "command", config.phases)
        forms += partial_forms
        issues += partial_issues
        names |= declared_names(partial.parsed.meta.get("elicitation"))
    form_set, combine_issues = combine(forms, names)
    issues += combine_issues
    fields = form_set.fields
    for arg in _listed(meta.get("args")):
        if arg not in fields:
            issues.append(Issue(origin=source.path, keys=("args",), field=arg, message=f"`args` names {arg!r}, which no form declares"))
    problems += [_locate(issue, sources) for issue in issues]
    problems += template_problems(source)
    return Entrypoint(kind, name, source.path, meta, parsed.body, form_set, tuple(problems))


def partial_problems(source: Source, config: Config) -> list[Problem]:
    """A partial's own mistakes, whether or not anything includes it or its `requires-*` hold.

    Checks that need the including entrypoint (duplicates, `when` targets) are
    made when an entrypoint is built.
    """
    if isinstance(source.parsed, FrontmatterError):
        return [Problem(path=source.path, line=source.parsed.line, message=str(source.parsed))]
    _, issues = source.declared(True, config.phases)
    return [_locate(issue, {source.path: source}) for issue in issues] + template_problems(source)


def template_problems(source: Source) -> list[Problem]:
    """A Mustache syntax error in the file's body, as a problem at its file line."""
    parsed = source.parsed
    found = template_problem(parsed.body) if isinstance(parsed, Parsed) else None
    if found is None:
        return []
    line, message = found
    return [Problem(path=source.path, line=parsed.body_line + line - 1, message=message)]


def _key_issues(kind: Kind, name: str, path: str, meta: Mapping[str, Any]):
    for key, value in meta.items():
        key = str(key)
        if key.startswith(REQUIRES):
            continue
        if key not in KEYS[kind]:
            accepted = ", ".join(sorted(KEYS[kind] | {f"{REQUIRES}<flag>"}))
            yield Issue(origin=path, keys=(key,), message=f"unknown {kind} frontmatter key `{key}`; accepted: {accepted}")
        elif key in TEXT_KEYS and not isinstance(value, str):
            yield Issue(origin=path, keys=(key,), message=f"`{key}` must be a string")
        elif key in LIST_KEYS and (not isinstance(value, list) or not all(isinstance(item, str) for item in value)):
            yield Issue(origin=path, keys=(key,), message=f"`{key}` must be a list of strings")
    if kind == "skill" and "name" in meta and meta["name"] != name:
        yield Issue(origin=path, keys=("name",), message=f"skill `name` {meta['name']!r} must equal its folder name {name!r}")


def _listed(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _locate(issue: Issue, sources: Mapping[str, Source]) -> Problem:
    parsed = sources[issue.origin].parsed
    line = locate(parsed.yaml_text, issue.keys, parsed.first_line) if isinstance(parsed, Parsed) else None
    return Problem(path=issue.origin, line=line, form=issue.form, field=issue.field, message=issue.message)
