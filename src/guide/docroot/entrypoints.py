"""Entrypoints: commands and skills with their effective forms, and the checks of their files (C4, C5).

`build` gathers an entrypoint's effective forms from its frontmatter and its
included partials; `check` finds its problems and notes in the light of the rest
of the docroot (its partials, guide.yaml) and reads its body; `partial_report`
checks a partial file on its own. All three are plain functions of what the
snapshot's build (`guide.docroot.facts.Facts`) knows: they cache nothing themselves.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from guide import address
from guide.address import EntrypointKind
from guide.docroot import references
from guide.docroot.config import Config
from guide.docroot.display import icon_issues
from guide.docroot.facts import Facts
from guide.docroot.frontmatter import Front, FrontmatterError, Parsed, listed, locate
from guide.docroot.keys import key_issues
from guide.docroot.url_checks import link_issues
from guide.errors import Issue, Problem
from guide.forms.combine import combine
from guide.forms.declare import EMPTY, FormSet, declared_names
from guide.spelling import near_miss


@dataclass(frozen=True, slots=True)
class Entrypoint:
    """A command or skill as declared: its frontmatter and effective forms. Its problems come from `check`."""

    kind: EntrypointKind
    name: str
    path: str
    meta: Mapping[str, Any]
    forms: FormSet
    uri: str
    """Its address: `guide://_name` for a command, `guide://$name` for a skill."""
    arg_fields: tuple[str, ...] = ()
    """The fields its positional args fill, in order (`args`; read once, as every read of it asks)."""

    @property
    def description(self) -> str:
        """The one-line description from frontmatter (empty when none)."""
        return str(self.meta.get("description", ""))

    def listed(self, key: str) -> tuple[str, ...]:
        """A list-valued frontmatter key such as `aliases`, `args` or `argrequired`."""
        return listed(self.meta, key)


@dataclass(frozen=True, slots=True)
class Findings:
    """What building an entrypoint found that its checks report: declaration issues and unreadable partials."""

    issues: tuple[Issue, ...] = ()
    problems: tuple[Problem, ...] = ()
    names: tuple[str, ...] = ()
    """Every field name the effective forms declare, even those of forms with errors, sorted (a few: a tuple is a third of a set)."""
    includes: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()
    """The files whose issues may be reported: the entrypoint and its applying partials."""


def build(kind: EntrypointKind, name: str, path: str, files: Facts) -> tuple[Entrypoint, Findings]:
    """An entrypoint's effective forms from itself and its included partials, and what its checks will report."""
    uri = address.command_address(name) if kind == "command" else address.skill_address(name)
    front = files.front(path)
    if isinstance(front, FrontmatterError):
        return Entrypoint(kind, name, path, {}, EMPTY, uri), Findings(problems=(Problem(path=path, line=front.line, message=str(front)),))
    meta = front.meta
    own_forms, issues = files.declared(path, kind == "command")
    forms, names, issues, problems = list(own_forms), declared_names(meta.get("elicitation")), list(issues), []
    origins, includes = [path], listed(meta, "includes")
    for include in includes:
        rel = files.partials.get(include)
        partial = files.front(rel) if rel is not None else None
        if partial is None:
            message = f"`includes` names unknown partial {include!r}{_did_you_mean(include, files.partials)}"
            issues.append(Issue(origin=path, keys=("includes",), message=message))
        elif isinstance(partial, FrontmatterError):
            problems.append(Problem(path=rel, line=partial.line, message=str(partial)))
        elif files.allows(rel):
            origins.append(rel)
            partial_forms, partial_issues = files.declared(rel, kind == "command")
            forms += partial_forms
            issues += partial_issues
            names |= declared_names(partial.meta.get("elicitation"))
    form_set, combine_issues = combine(forms, names)
    issues += combine_issues
    findings = Findings(tuple(issues), tuple(problems), tuple(sorted(names)), includes, tuple(origins))
    return Entrypoint(kind, name, path, meta, form_set, uri, listed(meta, "args")), findings


def check(entrypoint: Entrypoint, findings: Findings, files: Facts) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
    """The problems (authoring errors) and notes of a built entrypoint; reads its body."""
    if not findings.origins:  # the file itself cannot be read: that is its one problem
        return findings.problems, ()
    kind, path, meta = entrypoint.kind, entrypoint.path, entrypoint.meta
    found, note_issues = key_issues(kind, path, meta, files.config, files.config_ok)
    if kind == "skill" and "name" in meta and meta["name"] != entrypoint.name:
        found.append(Issue(origin=path, keys=("name",), message=f"skill `name` {meta['name']!r} must equal its folder name {entrypoint.name!r}"))
    found += findings.issues
    found += icon_issues(path, meta, files.icon)
    found += link_issues(entrypoint.forms, files.config.url_hosts, findings.names)
    for arg in listed(meta, "args"):
        if arg not in findings.names:  # a field of a form with its own error is not reported missing again
            found.append(Issue(origin=path, keys=("args",), field=arg, message=f"`args` names {arg!r}, which no form declares"))
    body_problems, body_notes = _body_report(path, files, set(findings.includes))
    reference_problems, reference_notes = references.report(path, findings.includes, files)
    problems = [*findings.problems, *(_locate(issue, files) for issue in found), *body_problems, *reference_problems]
    return tuple(problems), tuple([_locate(issue, files) for issue in note_issues] + body_notes + reference_notes)


def partial_report(path: str, files: Facts) -> tuple[list[Problem], list[Problem]]:
    """A partial's own problems and notes, whether or not anything includes it or its `requires-*` hold.

    Checks that need the including entrypoint (duplicates, `when` targets) are
    made when an entrypoint is built.
    """
    front = files.front(path)
    if isinstance(front, FrontmatterError):
        return [Problem(path=path, line=front.line, message=str(front))], []
    errors, notes = key_issues("partial", path, front.meta, files.config, files.config_ok)
    _, issues = files.declared(path, True)
    body_problems, _ = _body_report(path, files, set())
    problems = [_locate(issue, files) for issue in [*errors, *issues]] + body_problems
    return problems, [_locate(issue, files) for issue in notes]


def _body_report(path: str, files: Facts, includes: set[str]) -> tuple[list[Problem], list[Problem]]:
    """The body's syntax error, `{{>name}}` tags naming no partial or starting a loop, and partials whose forms are not asked."""
    parsed = files.parsed(path)
    if isinstance(parsed, FrontmatterError):
        return [Problem(path=path, line=parsed.line, message=str(parsed))], []
    template = files.template(path)

    def at(line: int, message: str) -> Problem:
        return Problem(path=path, line=parsed.body_line + line - 1, message=message)

    if template.problem is not None:
        return [at(*template.problem)], []
    problems, notes = [], []
    for name, line in template.partials:
        if name not in files.partials:
            problems.append(at(line, f"`{{{{>{name}}}}}` names no partial{_did_you_mean(name, files.partials)}"))
            continue
        loop = files.partial_loop([name])
        if loop:
            problems.append(at(line, f"`{{{{>{name}}}}}` enters a loop of partials that include each other: {' -> '.join(loop)}"))
            continue
        for reached in files.partials_reached([name]):
            if reached not in includes and _asks(files.front(files.partials[reached]), files.config):
                message = f"`{{{{>{name}}}}}` renders partial {reached}, whose forms are not asked here (its values render empty)"
                message += f"; add {reached!r} to `includes`"
                notes.append(at(line, message))
    return problems, notes


def alias_problems(commands: Mapping[str, str], files: Facts) -> list[Problem]:
    """Aliases that name another command or another command's alias (checked across every command, by `guide check`).

    The command itself still serves by its name; only the alias cannot work.
    """
    owners: dict[str, str] = {}
    clashes: dict[str, list[str]] = {}
    for name, rel in sorted(commands.items()):
        front = files.front(rel)
        if isinstance(front, FrontmatterError):
            continue
        for alias in listed(front.meta, "aliases"):
            if alias in commands and alias != name:
                clashes.setdefault(name, []).append(f"alias {alias!r} is the name of another command; a name always wins, so the alias never works")
            elif alias in owners and owners[alias] != name:
                clashes.setdefault(name, []).append(f"alias {alias!r} is also an alias of command {owners[alias]!r}; rename one of them")
            else:
                owners.setdefault(alias, name)
    issues = [Issue(origin=commands[name], keys=("aliases",), message=message) for name, messages in clashes.items() for message in messages]
    return [_locate(issue, files) for issue in issues]


def _asks(front: Front | FrontmatterError, config: Config) -> bool:
    return isinstance(front, Front) and bool(front.meta.get("elicitation")) and config.allows(front.meta)


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    found = near_miss(name, known)
    return f"; did you mean {found!r}?" if found else ""


def _locate(issue: Issue, files: Facts) -> Problem:
    parsed = files.parsed(issue.origin)
    line = locate(parsed.yaml_text, issue.keys, parsed.first_line) if isinstance(parsed, Parsed) else None
    return Problem(path=issue.origin, line=line, form=issue.form, field=issue.field, message=issue.message)
