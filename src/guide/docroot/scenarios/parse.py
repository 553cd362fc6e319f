"""Read a scenario file: YAML with Guide's rules, each scenario's keys and their shapes, every mistake pinned to its line.

What needs only the file is checked here (unknown keys with near misses, types,
paths that must stay inside `_tests`, clients that cannot carry the answers or
the failure expected); what needs the docroot (the entrypoint, its forms and
fields) is `checks`. A scenario with a mistake is marked broken, by name: it
is still checked against the docroot, and not run; the others still run.
"""

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from guide.docroot.frontmatter import composed, line_in
from guide.docroot.scenarios.model import (
    ACTIONS,
    ASKING,
    CLIENTS,
    DEFAULT_CLIENTS,
    EXPECT_KEYS,
    FAILS_KEYS,
    REASONS,
    SCENARIO_KEYS,
    SUFFIXES,
    TESTS,
    Expect,
    Failing,
    Lines,
    Scenario,
    ScenarioFile,
)
from guide.docroot.yaml_loader import ExpansionError, loader_for
from guide.errors import Problem
from guide.spelling import boolean_key_hint, near_miss
from guide.text import clip

FAILED_BY_ASKING = ("declined", "cancelled", "unanswered")
"""Failures only a client that shows forms meets (the person refused a form, or the client did not answer)."""
FAILED_WITHOUT_FORMS = ("missing",)
"""The failure only a client without forms meets: values a form would have asked for are missing."""


class Mistakes:
    """The problems found in one scenario, each at the line of the key it concerns."""

    def __init__(self, path: str, name: str, lines: Lines):
        self.path, self.name, self.lines = path, name, lines
        self.found: list[Problem] = []

    def add(self, keys: Sequence[Any], message: str) -> None:
        """Note one mistake at the line of `keys` (inside the scenario); the message names the form or field it concerns."""
        line = self.lines((self.name, *keys))
        self.found.append(Problem(path=self.path, line=line, message=f"scenario {clip(self.name)!r}: {message}"))


def parse(path: str, text: str) -> ScenarioFile:
    """The scenarios of the file at `path` (relative to the docroot), from its text."""
    try:
        data = _load(text)
    except _Unreadable as error:
        return ScenarioFile(path, problems=(Problem(path=path, line=error.line, message=str(error)),))
    if not isinstance(data, Mapping) or not data:
        message = "a scenario file is a YAML mapping of scenario names to scenarios (`name: {read: ..., expect: ...}`); this one holds none"
        return ScenarioFile(path, problems=(Problem(path=path, line=1, message=message),))
    node = composed(text)
    lines: Lines = lambda keys: line_in(node, keys, 1)  # noqa: E731
    scenarios, broken = [], {}
    for name, body in data.items():
        mistakes = Mistakes(path, str(name), lines)
        scenario = _scenario(mistakes, name, body)
        if scenario is not None:
            scenarios.append(scenario)
        if mistakes.found:
            broken[str(name)] = tuple(sorted(mistakes.found, key=lambda problem: problem.line or 0))
    return ScenarioFile(path, tuple(scenarios), tuple(problem for found in broken.values() for problem in found), broken)


class _Unreadable(ValueError):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def _load(text: str) -> Any:
    """The YAML data of a scenario file (duplicate keys refused, aliases bounded); `_Unreadable` says where it is wrong."""
    loader = loader_for(text)
    try:
        node = loader.get_single_node()
        return loader.construct_document(node) if node is not None else None
    except ExpansionError as error:
        raise _Unreadable(f"the scenario file's {error}", 1 + error.line) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or str(error)
        raise _Unreadable(f"the scenario file is not valid YAML: {reason}", 1 + mark.line if mark is not None else 1) from None
    except ValueError as error:  # a scalar YAML reads but Python cannot hold
        raise _Unreadable(f"the scenario file holds a value that cannot be read: {str(error).split(':')[0]}", 1) from None
    finally:
        loader.dispose()


def _scenario(mistakes: Mistakes, name: Any, body: Any) -> Scenario | None:
    """One scenario from its name and body, its mistakes noted in `mistakes` (None when it is not a mapping at all)."""
    if not isinstance(name, str) or not name.strip():
        mistakes.add((), f"a scenario's name is a non-empty text, not {clip(repr(name))}{boolean_key_hint(name) or '; quote it'}")
        return None
    if not isinstance(body, Mapping):
        mistakes.add((), "a scenario is a mapping with `read` (or `prompt`), `answers`, `clients`, `project` and `expect`")
        return None
    guessed = _known_keys(mistakes, (), body, SCENARIO_KEYS, "scenario")
    read, prompt = _read(mistakes, body, guessed)
    answers = _answers(mistakes, body.get("answers"))
    clients = _clients(mistakes, body.get("clients"))
    project = _inside(mistakes, ("project",), body.get("project"), "project folder") if "project" in body else None
    expect = _expect(mistakes, body.get("expect"), guessed)
    scenario = Scenario(mistakes.path, name, mistakes.lines((name,)), read, prompt, answers, clients or DEFAULT_CLIENTS, clients is not None,
                        project, expect, mistakes.lines)
    _consistent(mistakes, scenario)
    return scenario


def _known_keys(mistakes: Mistakes, keys: tuple[Any, ...], body: Mapping, known: Sequence[str], what: str) -> set[str]:
    """Note each unknown key (with the known one it resembles); return the known keys so resembled (their absence is said already)."""
    guessed = set()
    for key in body:
        if key not in known:
            guess = near_miss(key, known) if isinstance(key, str) else None
            hint = f"; did you mean `{guess}`?" if guess else f"; a {what} takes {', '.join(f'`{k}`' for k in known)}"
            mistakes.add((*keys, key), f"unknown key `{clip(str(key))}`{hint}{boolean_key_hint(key)}")
            guessed.add(guess or "")
    return guessed


def _read(mistakes: Mistakes, body: Mapping, guessed: set[str]) -> tuple[str | None, str | None]:
    given = [key for key in ("read", "prompt") if key in body]
    if not given:
        if not guessed & {"read", "prompt"}:
            mistakes.add((), "says nothing to read: give `read` (a guide:// address) or `prompt` (a line of the guide prompt, `_review --mode branch`)")
        return None, None
    if len(given) == 2:
        mistakes.add(("prompt",), "gives both `read` and `prompt`; a scenario reads one of them")
    found = []
    for key in given:
        value = body[key]
        if not isinstance(value, str) or not value.strip():
            mistakes.add((key,), f"`{key}` is a non-empty text")
            value = None
        found.append(value)
    return (found[0], None) if given[0] == "read" else (None, found[0])


def _answers(mistakes: Mistakes, answers: Any) -> dict[str, Any]:
    if answers is None:
        return {}
    if not isinstance(answers, Mapping):
        mistakes.add(("answers",), "`answers` maps each form id to its field values, or to decline or cancel")
        return {}
    found = {}
    for form, reply in answers.items():
        if not isinstance(form, str):
            mistakes.add(("answers", form), f"a form id is a text, not {clip(repr(form))}{boolean_key_hint(form)}")
        elif isinstance(reply, Mapping) and all(isinstance(key, str) for key in reply):
            found[form] = dict(reply)
        elif reply in ACTIONS:
            found[form] = reply
        else:
            guess = near_miss(reply, ACTIONS) if isinstance(reply, str) else None
            hint = f"; did you mean {guess}?" if guess else ""
            mistakes.add(("answers", form), f"the answer to form {form} is a mapping of field values, decline or cancel, not {clip(repr(reply))}{hint}")
    return found


def _clients(mistakes: Mistakes, clients: Any) -> tuple[str, ...] | None:
    if clients is None:
        return None
    names = [clients] if isinstance(clients, str) else clients
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        mistakes.add(("clients",), f"`clients` is one client or a list of them: {', '.join(CLIENTS)}")
        return None
    for index, name in enumerate(names):
        if name not in CLIENTS:
            guess = near_miss(name, CLIENTS)
            hint = f"did you mean {guess}?" if guess else f"the clients are {', '.join(CLIENTS)}"
            mistakes.add(("clients", index) if isinstance(clients, list) else ("clients",), f"unknown client {clip(name)!r}; {hint}")
    if len(set(names)) < len(names):
        mistakes.add(("clients",), "`clients` names a client twice")
    return tuple(dict.fromkeys(names))


def _inside(mistakes: Mistakes, keys: tuple[Any, ...], value: Any, what: str) -> str | None:
    """A path given relative to `_tests`, as a path relative to the docroot; None (and a mistake) if it is not one inside `_tests`."""
    if not isinstance(value, str) or not value.strip():
        mistakes.add(keys, f"the {what} is a path relative to {TESTS}/")
        return None
    joined = posixpath.normpath(posixpath.join(TESTS, value))
    if value.startswith(("/", "\\")) or "\\" in value or not joined.startswith(TESTS + "/"):
        mistakes.add(keys, f"the {what} {clip(value)!r} must be a path inside {TESTS}/, written relative to it")
        return None
    return joined


def _expect(mistakes: Mistakes, expect: Any, guessed: set[str]) -> Expect:
    if not isinstance(expect, Mapping) or not expect:
        if expect is None and "expect" in guessed:
            return Expect()
        mistakes.add(("expect",) if expect is not None else (),
                     "`expect` says what should happen: `text` or `snapshot` (the rendered text), `asks` (the forms asked) or `fails`")
        return Expect()
    _known_keys(mistakes, ("expect",), expect, EXPECT_KEYS, "`expect`")
    text = expect.get("text")
    if "text" in expect and not isinstance(text, str):
        mistakes.add(("expect", "text"), "`expect.text` is the rendered text (a YAML block: `text: |`)")
        text = None
    snapshot = _snapshot(mistakes, expect)
    asks = expect.get("asks")
    if "asks" in expect and (not isinstance(asks, list) or not all(isinstance(form, str) for form in asks)):
        mistakes.add(("expect", "asks"), "`expect.asks` is the list of form ids asked, in declaration order (`[]`: none)")
        asks = None
    fails = _fails(mistakes, expect.get("fails")) if "fails" in expect else None
    if "text" in expect and "snapshot" in expect:
        mistakes.add(("expect", "snapshot"), "`expect` gives both `text` and `snapshot`; the rendered text is one or the other")
    if "fails" in expect and any(key in expect for key in ("text", "snapshot", "asks")):
        mistakes.add(("expect", "fails"), "`expect.fails` goes alone: a failed read renders nothing, and the eras ask different forms before"
                     " a failure (a legacy client stops at the form that failed, a 2026-07-28 round asks every pending form)")
    return Expect(text, snapshot, tuple(asks) if isinstance(asks, list) else None, fails)


def _snapshot(mistakes: Mistakes, expect: Mapping) -> str | None:
    if "snapshot" not in expect:
        return None
    snapshot = _inside(mistakes, ("expect", "snapshot"), expect["snapshot"], "snapshot")
    if snapshot is not None and posixpath.dirname(snapshot) == TESTS and snapshot.endswith(SUFFIXES):
        mistakes.add(("expect", "snapshot"), f"the snapshot {clip(expect['snapshot'])!r} would be read as a scenario file; put snapshots in a "
                     f"subfolder of {TESTS}/ (snapshots/...) or give them another suffix")
        return None
    return snapshot


def _fails(mistakes: Mistakes, fails: Any) -> Failing | None:
    if not isinstance(fails, Mapping) or "reason" not in fails:
        mistakes.add(("expect", "fails"), f"`expect.fails` is a mapping with `reason` (one of: {', '.join(REASONS)}) and optionally `fields`")
        return None
    _known_keys(mistakes, ("expect", "fails"), fails, FAILS_KEYS, "`expect.fails`")
    reason, fields = fails["reason"], fails.get("fields")
    if reason not in REASONS:
        guess = near_miss(reason, REASONS) if isinstance(reason, str) else None
        hint = f"did you mean {guess}?" if guess else f"the reasons are {', '.join(REASONS)}"
        mistakes.add(("expect", "fails", "reason"), f"unknown failure reason {clip(repr(reason))}; {hint}")
        return None
    if "fields" in fails and (not isinstance(fields, list) or not all(isinstance(name, str) for name in fields)):
        mistakes.add(("expect", "fails", "fields"), "`expect.fails.fields` is the list of the keywords of the fields concerned")
        fields = None
    return Failing(reason, tuple(fields) if isinstance(fields, list) else None)


def _consistent(mistakes: Mistakes, scenario: Scenario) -> None:
    """Clients that cannot carry what the scenario says: a refusal without forms, a failure only other clients meet."""
    clients, named, fails = scenario.clients, scenario.named_clients, scenario.expect.fails
    if named and scenario.refuses() and any(client not in ASKING for client in clients):
        mistakes.add(("clients",), "the person declines or cancels a form here, which only a client that shows forms can carry; "
                     f"name those clients only ({', '.join(ASKING)})")
    if named and "keywords" in clients and "forms" not in clients:
        mistakes.add(("clients",), "`keywords` reads the address with what the person gave the forms: name `forms` too")
    if scenario.prompt is not None and named and "apps" in clients:
        mistakes.add(("clients",), "the App form is opened by address: a prompt scenario runs in forms, agent, keywords and url")
    if fails is not None and fails.reason in FAILED_WITHOUT_FORMS and any(client in ASKING for client in clients):
        mistakes.add(("expect", "fails", "reason"), "only a client without forms fails with `missing` (a client with forms asks): add "
                     "`clients: agent`")
    if fails is not None and fails.reason in FAILED_BY_ASKING and not any(client in ASKING for client in clients):
        mistakes.add(("expect", "fails", "reason"), f"only a client that shows forms fails with `{fails.reason}`; name one in `clients`")
