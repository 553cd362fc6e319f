"""The last `guide check` report of a docroot, reused while nothing it was made from has changed.

A report is kept with a fingerprint of everything it depends on: Guide's own
code, the layout (every file in its role), guide.yaml as read, the text of every
template, and the size and time of every document and skill member (they can
only add notes). A check of an unchanged docroot then reads its files and prints
the kept report without declaring a single form. Stored as JSON beside the
parse cache (`GUIDE_CACHE_DIR`, `GUIDE_NO_CACHE`); a missing, corrupt or
foreign file just means the docroot is checked again.
"""

import hashlib
import json
import logging
import os
import tempfile
from contextlib import suppress
from functools import cache
from pathlib import Path

import guide
from guide.docroot.lint import Report, from_json, lint
from guide.docroot.parse_cache import cache_folder
from guide.docroot.snapshot import Snapshot

SUBFOLDER = "reports"
log = logging.getLogger("guide")


def checked(snapshot: Snapshot) -> Report:
    """The lint report of a snapshot: the kept one if nothing it depends on changed, else a new one (then kept)."""
    folder = cache_folder()
    path = None if folder is None else folder.parent / SUBFOLDER / f"{hashlib.sha256(str(snapshot.root).encode()).hexdigest()[:32]}.json"
    mark = fingerprint(snapshot)
    kept = _load(path, mark) if path is not None else None
    if kept is not None:
        return kept
    report = lint(snapshot)
    if path is not None:
        _save(path, mark, report)
    return report


def fingerprint(snapshot: Snapshot) -> str:
    """A digest of everything a lint report of this snapshot depends on."""
    digest = hashlib.blake2b(digest_size=20)
    layout = snapshot.layout
    for part in (_code(), repr(snapshot.config), repr(snapshot.config_problems), repr(layout.problems)):
        digest.update(part.encode())
    for role in ("commands", "skills", "partials", "documents", "members"):
        digest.update(repr(sorted(getattr(layout, role).items())).encode())
    for rel, source in sorted(snapshot.sources.items()):
        digest.update(f"\0{rel}\0".encode())
        digest.update((source.text if source.text is not None else "\0unreadable").encode("utf-8", "surrogatepass"))
    for rel in sorted([*layout.documents.values(), *layout.members.values()]):
        try:
            stat = (snapshot.root / rel).stat()
            digest.update(f"\0{rel}\0{stat.st_mtime_ns}\0{stat.st_size}".encode())
        except OSError:
            digest.update(f"\0{rel}\0gone".encode())
    return digest.hexdigest()


@cache
def _code() -> str:
    """A digest of Guide's own code: another version (or an edit of it) never reuses a report."""
    digest = hashlib.blake2b(digest_size=20)
    for path in sorted(Path(guide.__file__).parent.rglob("*.py")):
        with suppress(OSError):
            digest.update(path.read_bytes())
    return f"{guide.__version__}:{digest.hexdigest()}"


def _load(path: Path, mark: str) -> Report | None:
    try:
        document = json.loads(path.read_bytes())
        return from_json(document["report"]) if document.get("fingerprint") == mark else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(path: Path, mark: str, report: Report) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(json.dumps({"fingerprint": mark, "report": report.as_json()}))  # one string: json.dump encodes in Python
            os.replace(temporary, path)
        except BaseException:
            with suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        log.warning("check report cannot be kept in %s (%s); the next check reads everything again", path.parent, error.strerror or error)
