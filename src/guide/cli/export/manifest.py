"""The manifest of an export: what was exported from where, with which values, and the digest of every file written.

It lives in the agent's skills folder (`.guide-export.json`, hidden: agents and
skill loaders skip it) and is what `guide export-skills --update` works from:
each entry's address (with its keywords) and answers are read again, and a file
is only ever replaced or removed while its digest is the one recorded here, so
a file Guide did not write, or one edited since, is never overwritten. A
manifest that is not Guide's, or is malformed, is refused in one line.
"""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guide.errors import GuideError

FORMAT = "guide-export/1"


@dataclass(frozen=True)
class Entry:
    """One exported command or skill: the address it was read as, the answers file's content, what stays to ask, its files."""

    uri: str
    answers: dict[str, Any] | None = None
    asks: tuple[str, ...] = ()
    """The forms the exported text asks the person first (none: rendered with every value)."""
    files: dict[str, str] = field(default_factory=dict)
    """Each file written, by its path relative to the project, with its digest."""

    def as_json(self) -> dict[str, Any]:
        """The entry as the manifest holds it."""
        return {"address": self.uri, "answers": self.answers, "asks": list(self.asks), "files": dict(sorted(self.files.items()))}


@dataclass(frozen=True)
class Manifest:
    """What an export wrote into one agent's folders."""

    agent: str
    docroot: str
    project: str | None = None
    every: bool = False
    """Whether every command and skill was chosen (no address given): `--update` then exports new ones too."""
    entries: tuple[Entry, ...] = ()

    def digests(self) -> dict[str, str]:
        """Every file written, by path, with its digest."""
        return {path: digest for entry in self.entries for path, digest in entry.files.items()}

    def as_json(self) -> dict[str, Any]:
        """The manifest as written."""
        return {"format": FORMAT, "agent": self.agent, "docroot": self.docroot, "project": self.project, "every": self.every,
                "entries": [entry.as_json() for entry in self.entries]}


def digest(data: bytes) -> str:
    """The digest a manifest records: `sha256:` and the hex SHA-256 of the bytes."""
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def load(path: Path) -> Manifest | None:
    """The manifest at `path`, None when there is none; one that is unreadable, malformed or not Guide's raises one line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise GuideError(f"cannot read the export manifest {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        found = json.loads(text)
        return _manifest(found)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise GuideError(f"{path} is not a manifest guide export-skills wrote ({_reason(error)}); move it away to export here") from None


def save(path: Path, manifest: Manifest) -> None:
    """Write the manifest, whole or not at all (a temporary file renamed over it)."""
    temporary = path.with_name(f"{path.name}.tmp")
    temporary.write_text(json.dumps(manifest.as_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    temporary.replace(path)


def _manifest(found: Any) -> Manifest:
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ValueError(f"its format is not {FORMAT}")
    entries = []
    for entry in found["entries"]:
        files = entry["files"]
        if not isinstance(entry["address"], str) or not isinstance(files, dict) or not all(isinstance(value, str) for value in files.values()):
            raise ValueError("an entry has no address or files")
        answers = entry.get("answers")
        if answers is not None and not isinstance(answers, dict):
            raise ValueError(f"the answers of {entry['address']} are not an object")
        entries.append(Entry(entry["address"], answers, tuple(map(str, entry.get("asks") or ())), {str(k): v for k, v in files.items()}))
    project = found.get("project")
    return Manifest(str(found["agent"]), str(found["docroot"]), str(project) if project is not None else None, bool(found.get("every")),
                    tuple(entries))


def _reason(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"it has no {error.args[0]}"
    return str(error).splitlines()[0] if str(error) else "it is malformed"
