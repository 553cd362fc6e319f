"""What a command, skill or document shows in clients' lists beside its name and description: `title:`, `icon:`, `audience:`.

`title` is a short human-readable name (MCP's `title`); `icon` an image
(`guide.docroot.icons`: a docroot file or an https address, MCP's `icons`);
`audience` who the item is meant for, `user`, `assistant` or both (MCP's
`annotations.audience`). They are Guide's keys: a skill's served `SKILL.md`
never carries them. A wrong value is an authoring error, as for any key Guide
reads: the file cannot be read until it is fixed, and `guide check` names it.
"""

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from guide.docroot.icons import ACCEPTED, Icon
from guide.errors import Issue
from guide.spelling import near_miss

KEYS = ("title", "icon", "audience")
_KEYS = frozenset(KEYS)
AUDIENCES = ("user", "assistant")
MAX_TITLE = 200
"""The longest `title`, in characters: a list shows a line, not a paragraph (the `description` says more)."""


@dataclass(frozen=True, slots=True)
class Display:
    """A file's title, icon (as written) and audience for lists."""

    title: str | None = None
    icon: str | None = None
    audience: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.title or self.icon or self.audience)


NOTHING = Display()


def read(meta: Mapping[str, Any]) -> Display:
    """The display keys of a frontmatter mapping, misshapen values left out.

    A value of the wrong shape counts as absent: the checks report it.
    """
    if _KEYS.isdisjoint(meta):
        return NOTHING  # most files: one set operation
    title, icon = meta.get("title"), meta.get("icon")
    audience = _audience(meta.get("audience"))
    return Display(title.strip() if isinstance(title, str) and title.strip() else None, icon if isinstance(icon, str) and icon else None,
                   tuple(audience) if audience is not None and not _audience_problem(audience) else ())


def shape_issues(path: str, key: str, value: Any) -> Iterator[Issue]:
    """The problems of one display key's value, reading no file."""
    if key == "title" and (not isinstance(value, str) or not value.strip() or "\n" in value.strip() or len(value) > MAX_TITLE):
        yield Issue(origin=path, keys=(key,), message=f"`title` must be one line of text, at most {MAX_TITLE} characters (say more in `description`)")
    elif key == "icon" and (not isinstance(value, str) or not value):
        yield Issue(origin=path, keys=(key,), message=f"`icon` must be {ACCEPTED}")
    elif key == "audience":
        listed = _audience(value)
        message = "`audience` must be user, assistant, or a list of them ([user, assistant])" if listed is None else _audience_problem(listed)
        if message:
            yield Issue(origin=path, keys=(key,), message=message)


def icon_issues(path: str, meta: Mapping[str, Any], load: Callable[[str], Icon | str]) -> list[Issue]:
    """The problem of an `icon` that names no usable image (`load` reads it)."""
    value = meta.get("icon")
    found = load(value) if isinstance(value, str) and value else None
    return [Issue(origin=path, keys=("icon",), message=found)] if isinstance(found, str) else []


def _audience(value: Any) -> list[Any] | None:
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, list) and value else None


def _audience_problem(listed: list[Any]) -> str | None:
    for item in listed:
        if item not in AUDIENCES:
            found = near_miss(item, AUDIENCES) if isinstance(item, str) else None
            hint = f"; did you mean `{found}`?" if found else ""
            return f"`audience` {item!r} is not one of user, assistant{hint}"
    return "`audience` names a role twice" if len(set(listed)) != len(listed) else None
