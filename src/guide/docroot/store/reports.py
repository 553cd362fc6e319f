"""The report kind of the store: the last `guide check` report of a docroot, reused while nothing it depends on changed.

A report is kept with a fingerprint of everything it depends on: the layout
(every file in its role), guide.yaml as read, and the stamp of every file it
looked at (templates, documents and skill members); the code that made it is
named in the kept file's header. A check of an unchanged docroot then prints the
kept report without reading a template. A file changed within `RACY_NS` of the
check might change again unseen by its stamp, so the digest of its text is kept
too, and compared before the report is reused.
"""

import hashlib
import time

from guide.docroot import files
from guide.docroot.built import Built
from guide.docroot.lint import Report, from_json, lint
from guide.docroot.snapshot import LISTED_ROLES
from guide.docroot.store.disk import Store
from guide.docroot.store.parses import RACY_NS

KIND = "reports"


def checked(built: Built, store: Store) -> Report:
    """The lint report of a docroot: the kept one if nothing it depends on changed, else a new one (then kept)."""
    mark, name = fingerprint(built), str(built.root)
    document = store.load(KIND, name)
    if isinstance(document, dict) and document.get("fingerprint") == mark and _same_texts(built, document.get("texts")):
        try:
            return from_json(document.get("report"))
        except ValueError:
            pass  # not a report this code wrote: made again, and kept
    report = lint(built)
    store.save(KIND, name, {"fingerprint": mark, "texts": _racy_texts(built), "report": report.as_json()})
    return report


def fingerprint(built: Built) -> str:
    """A digest of everything a lint report of this docroot depends on, contents aside (the stamps stand for them)."""
    snapshot, digest = built.snapshot, hashlib.blake2b(digest_size=20)
    layout = snapshot.layout
    for part in (repr(snapshot.config), repr(snapshot.config_problems), repr(layout.problems), repr(layout.notes)):
        digest.update(part.encode("utf-8", "surrogatepass"))
    for role in LISTED_ROLES:
        digest.update(repr(sorted(getattr(layout, role).items())).encode("utf-8", "surrogatepass"))
    for rel, stamp in sorted(_stamps(built).items()):
        digest.update(f"\0{rel}\0{stamp}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _stamps(built: Built) -> dict:
    snapshot = built.snapshot
    return {**snapshot.layout.stamps, **{rel: source.stamp for rel, source in snapshot.sources.items()}}


def _racy_texts(built: Built) -> dict[str, str]:
    """The digest of each file changed too recently for its stamp to tell a later change (see `RACY_NS`)."""
    newest = time.time_ns() - RACY_NS
    return {rel: _text_digest(built, rel) for rel, stamp in _stamps(built).items() if stamp is None or stamp[3] > newest}


def _same_texts(built: Built, texts: object) -> bool:
    return isinstance(texts, dict) and all(isinstance(kept, str) and _text_digest(built, rel) == kept for rel, kept in texts.items())


def _text_digest(built: Built, rel: str) -> str:
    try:
        data = files.read_bytes(files.real_path(built.root, rel), built.limit)
    except files.Refused as error:
        return f"unreadable: {error}"
    return hashlib.blake2b(data, digest_size=16).hexdigest()
