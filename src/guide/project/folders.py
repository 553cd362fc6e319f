"""Which folder a read may name as its project (C10): one inside the `--projects-under` folder, after links are followed.

A server serves one project unless it is started with `--projects-under DIR`:
then a read may name another with the reserved keyword `project=<absolute path>`
(the prompt flag `--project`), and a legacy client that declares roots names one
when exactly one of its roots lies inside DIR. What is named is checked here,
on the file system (slow: never on the event loop): an absolute path with no
`.`/`..` segment, which once its links are followed is a folder inside DIR.

The refusals a caller sees say what is accepted without naming DIR or what a
path resolved to, and without telling an existing folder outside DIR from a
missing one: over HTTP the caller is not the operator.
"""

import itertools
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from guide.errors import InputError
from guide.protocol import PROJECT
from guide.text import clip

log = logging.getLogger("guide")
ACCEPTED = f"{PROJECT}=<absolute path of a project folder inside the server's --projects-under folder>"
"""What every refusal says is accepted."""
_ENCODED = re.compile(r"%(2[eEfF]|5[cC]|00)")
"""A separator, dot or NUL still percent-encoded after the address was decoded (once): an attempt to slip one past the checks."""
SHOWN_LENGTH = 300
"""The most characters of a path a refusal quotes (a path is longer than most values a message quotes)."""
MAX_ROOTS = 64
"""The most roots of a client looked at, in its order (each is looked up on the file system); past them a read names its project by the keyword."""
MAX_LISTED = 10_000
"""The most entries of the projects folder looked at to complete a `project` value (a completion offers 100 of them at most)."""
OFF = (f"the keyword {PROJECT} names the project of a read only when the server is started with --projects-under DIR "
       "(GUIDE_PROJECTS_UNDER); this server serves one project: leave the keyword out")


@dataclass(frozen=True)
class Projects:
    """The projects a server's reads may name besides its own: any folder inside `under`, when that is given (`--projects-under`)."""

    under: Path | None = None
    refused: str = "is not a folder inside the projects this server serves"
    """What a refusal says of a path the file system does not accept."""
    accepted: str = ACCEPTED
    """What a refusal says is accepted."""

    def named(self, given: Sequence[str]) -> Path:
        """The project the keyword's values name; `InputError` (one line) when they name none a read may have."""
        if self.under is None:
            raise InputError(OFF)
        if len(given) != 1:
            raise InputError(f"the keyword {PROJECT} is given {len(given)} times; give it once: {self.accepted}")
        text = given[0]
        problem = _shape_problem(text)
        if problem:
            raise InputError(f"{PROJECT}={_shown(text)} {problem}; accepted: {self.accepted}")
        found = self._inside(text)
        if found is None:
            log.info("refused %s=%s: not a folder inside %s once links are followed", PROJECT, clip(text), self.under)
            raise InputError(f"{PROJECT}={_shown(text)} {self.refused}; accepted: {self.accepted}")
        return found

    def rooted(self, roots: Iterable[str]) -> Path | None:
        """The project a legacy client's roots name: the one root inside `under` (a `file://` folder), else None."""
        if self.under is None:
            return None
        looked = itertools.islice(roots, MAX_ROOTS)
        inside = {found for root in looked if (path := _root_path(root)) is not None and (found := self._inside(path)) is not None}
        if len(inside) > 1:
            log.info("the client's roots name %d folders inside %s; serving the default project", len(inside), self.under)
        return inside.pop() if len(inside) == 1 else None

    def folders(self) -> list[str]:
        """The folders directly inside `under` (hidden ones left out), as absolute paths by name: what a `project` value is completed from."""
        if self.under is None:
            return []
        base = Path(os.path.abspath(self.under))
        try:
            with os.scandir(base) as entries:
                found = [entry for entry in itertools.islice(entries, MAX_LISTED) if not entry.name.startswith(".") and _is_folder(entry)]
        except OSError:
            return []
        return sorted(str(base / entry.name) for entry in found if not entry.is_symlink() or self._inside(entry.path) is not None)

    def _inside(self, text: str) -> Path | None:
        """The real folder `text` names, if it is inside `under` once links are followed (`under` itself counts)."""
        if self.under is None or _shape_problem(text):
            return None
        try:
            under = Path(os.path.realpath(self.under))
            real = Path(os.path.realpath(text))
            return real if real.is_relative_to(under) and real.is_dir() else None
        except OSError:  # a name too long, a folder that cannot be searched: nothing a read may name
            return None


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _shown(text: str) -> str:
    return repr(clip(text, SHOWN_LENGTH))


def _shape_problem(text: str) -> str | None:
    """What is wrong with `text` as a project path before the file system is asked (None: nothing)."""
    if not text:
        return "is empty"
    if any(ord(character) < 32 or character == "\x7f" for character in text):
        return "holds a control character"
    if _ENCODED.search(text):
        return "holds a percent-encoded separator or dot (an address is decoded once)"
    if not text.startswith("/"):
        return "is not an absolute path"
    if any(segment in (".", "..") for segment in text.split("/")):
        return "has a . or .. segment"
    return None


def _root_path(uri: str) -> str | None:
    """The local path of a `file://` root (its host empty or localhost), else None."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        return None
    return unquote(parts.path).rstrip("/") or "/"
