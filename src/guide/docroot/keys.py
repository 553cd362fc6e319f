"""The top-level frontmatter keys of each kind of file, and the checks on them (C2, C4, C5).

An unknown key that is a near miss of a known one is an error naming the key
it resembles; any other unknown key is the author's own metadata, kept and
reported as a note.
"""

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from guide.docroot import display
from guide.docroot.config import REQUIRES, Config
from guide.errors import Issue
from guide.spelling import boolean_key_hint, is_near_miss, near_miss

Role = Literal["command", "skill", "partial", "document"]
SHARED_KEYS = frozenset({"description", "elicitation", "fallback"})
LISTED = frozenset(display.KEYS)
"""What clients' lists show beside the description (`title`, `icon`, `audience`): on whatever is listed, never on a partial."""
KEYS: Mapping[Role, frozenset[str]] = {
    "command": SHARED_KEYS | LISTED | {"includes", "aliases", "usage", "examples", "argrequired", "args"},
    "skill": SHARED_KEYS | LISTED | {"includes", "name", "license", "compatibility", "metadata", "allowed-tools"},
    "partial": SHARED_KEYS,
    "document": LISTED | {"description", "elicitation"},  # `elicitation` has a note of its own: never asked (C2)
}
TEXT_KEYS = ("description", "usage", "name")
LIST_KEYS = ("aliases", "examples", "argrequired", "args", "includes")
_REQUIRES_WORD = REQUIRES.rstrip("-")


def key_issues(role: Role, path: str, meta: Mapping[Any, Any], config: Config, config_ok: bool) -> tuple[list[Issue], list[Issue]]:
    """The errors and the notes of a file's top-level keys.

    `config_ok` says whether guide.yaml was read without problems: only then is
    a `requires-<flag>` naming an undefined flag reported (else the root cause is).
    """
    errors, notes = [], []
    for key, value in meta.items():
        if not isinstance(key, str):
            errors.append(Issue(origin=path, keys=(key,), message=f"frontmatter key {key!r} must be a name{boolean_key_hint(key)}"))
        elif key.startswith(REQUIRES):
            errors += _flag_issues(path, key, config, config_ok)
        elif key not in KEYS[role]:
            suggestion = _suggestion(role, key)
            if suggestion:
                errors.append(Issue(origin=path, keys=(key,), message=f"unknown {role} frontmatter key `{key}`; did you mean `{suggestion}`?"))
            else:
                notes.append(Issue(origin=path, keys=(key,), message=f"frontmatter key `{key}` is not one Guide reads; it is kept as your own metadata"))
        else:
            errors += _shape_issues(path, key, value)
    return errors, notes


def _suggestion(role: Role, key: str) -> str | None:
    found = near_miss(key, KEYS[role])
    if found:
        return found
    head, separator, flag = key.replace("_", "-").partition("-")
    if separator and flag and is_near_miss(head, _REQUIRES_WORD):
        return f"{REQUIRES}{flag}"
    return None


def _shape_issues(path: str, key: str, value: Any) -> Iterator[Issue]:
    if key in LISTED:
        yield from display.shape_issues(path, key, value)
    elif key in TEXT_KEYS and not isinstance(value, str):
        yield Issue(origin=path, keys=(key,), message=f"`{key}` must be a string")
    elif key in LIST_KEYS and (not isinstance(value, list) or not all(isinstance(item, str) for item in value)):
        yield Issue(origin=path, keys=(key,), message=f"`{key}` must be a list of strings")


def _flag_issues(path: str, key: str, config: Config, config_ok: bool) -> Iterator[Issue]:
    flag = key[len(REQUIRES):]
    if not config_ok or flag in config.flags:
        return
    defined = ", ".join(sorted(map(str, config.flags))) or "none"
    found = near_miss(flag, [str(name) for name in config.flags])
    hint = f"did you mean `{REQUIRES}{found}`?" if found else "define it under `flags:` in guide.yaml"
    message = f"`{key}` names flag {flag!r}, which guide.yaml does not define (defined: {defined}), so this file never applies; {hint}"
    yield Issue(origin=path, keys=(key,), message=message)
