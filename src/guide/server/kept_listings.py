"""Listings carried to a snapshot with the same fingerprint: a restart with nothing changed lists without declaring a form.

The listings (resources, resource templates, prompts) are a function of the
snapshot, the icon files it shows and the server's project setting. A snapshot
made again with nothing changed (the watcher's first, an edit undone) takes the
last snapshot's. When a server has made all three, it keeps them in the store
(`guide.docroot.store.listings`) once it is calm after starting and again as it
stops, with the snapshot's fingerprint: the stamp of every file they were made
from, guide.yaml and the layout as read (`guide.docroot.lint.fingerprint`). The
next server restores them at its first listing when its snapshot has the same
fingerprint and every icon file still gives the same icon; otherwise it makes
them, as always.

A file written twice within its clock's granularity may change unseen by its
stamp. So a template file changed less than `RACY_NS` before the server began
(`Docroot.opened_ns`), or since, is read again when the listings are kept: they
are kept only if its text is the one this server parsed and its change is now
`RACY_NS` old, so that any later write changes its stamp. The restored
components are validated as FastMCP's own are made; a kept document of another
shape is ignored, and replaced at the next keep.
"""

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import ValidationError

from guide.docroot import lint
from guide.docroot.built import ICONS, Built
from guide.docroot.filework import read_file
from guide.docroot.folder import Docroot
from guide.docroot.icons import Icon
from guide.docroot.memo import UNBUILT, Once
from guide.docroot.store import listings
from guide.docroot.store.parses import RACY_NS, digest

KINDS = ("resources", "templates", "prompts")
LISTINGS: Once[list] = Once("each listing (resources, templates, prompts), by kind")
MARK: Once[str] = Once("the fingerprint of a snapshot's listings")

log = logging.getLogger("guide")

Record = list
"""One component as kept: `[fields, private]`, its fields as FastMCP dumps them (JSON) and what Guide adds (an address, a command)."""


class Listed(NamedTuple):
    """The three listings of one snapshot, with its fingerprint and the icon values they show (with what each gave)."""

    mark: str
    icons: dict[str, Any]
    components: dict[str, list]


class KeptListings:
    """Carries listings to a snapshot with the same fingerprint: from this server's last snapshot, or from the last server (the store)."""

    def __init__(self, docroot: Docroot, settings: str, record: Callable[[Any], Record], component: Callable[[str, Record], Any]):
        """`settings`: what of the server's settings the listings show; `record` and `component` turn a component into a record and back."""
        self.docroot = docroot
        self.settings = settings
        self.record = record
        self.component = component
        self._last: Listed | None = None  # the listings this server made or restored last
        self._tried = False  # whether the store was looked in (once per process)
        self._kept: str | None = None  # the fingerprint of the listings in the store, as far as this process knows
        self._lock = threading.Lock()

    def listed(self, built: Built) -> dict[str, list] | None:
        """The components of every kind, when a snapshot with the same fingerprint was listed before (by this server or the last); else None.

        A snapshot is made anew after each change the watcher sees, and once as
        the watch begins; when nothing a listing shows changed, its listings are
        the last ones.
        """
        mark = self.fingerprint(built)
        last = self._last
        if last is not None and last.mark == mark and _same_icons(built, last.icons):
            return last.components
        with self._lock:
            tried, self._tried = self._tried, True
        restored = self._restore(built, mark) if not tried else None
        if restored is not None:
            self._last = restored
        return restored.components if restored is not None else None

    def made(self, built: Built) -> None:
        """Note a snapshot's listings once all three are made (the ones `listed` and `keep` then use)."""
        made = {kind: built.made(LISTINGS, kind) for kind in KINDS}
        if all(found is not UNBUILT for found in made.values()):
            icons = {value: _as_kept(found) for value, found in dict(built.value(ICONS, dict)).items()}
            self._last = Listed(self.fingerprint(built), icons, made)

    def keep(self) -> None:
        """Keep the current snapshot's listings for the next process, when all three are made, settled and not kept yet (slow: never on the loop)."""
        built, last = self.docroot.built(), self._last
        if built is None or last is None or last.mark == self._kept or not self.docroot.store.usable:
            return
        if self.fingerprint(built) != last.mark or not _settled(built, self.docroot.opened_ns):
            return
        records = {kind: json.dumps([self.record(component) for component in last.components[kind]], separators=(",", ":")) for kind in KINDS}
        listings.save(self.docroot.store, str(built.snapshot.root), listings.Kept(last.mark, last.icons, records))
        self._kept = last.mark

    def fingerprint(self, built: Built) -> str:
        """What a snapshot's listings depend on, contents aside (the stamps stand for them), with the server's settings (once per snapshot)."""
        return built.value(MARK, lambda: hashlib.blake2b(f"{lint.fingerprint(built)}\0{self.settings}".encode(), digest_size=20).hexdigest())

    def _restore(self, built: Built, mark: str) -> Listed | None:
        store = self.docroot.store
        kept = listings.load(store, str(built.snapshot.root), mark) if store.usable else None
        if kept is None or not _same_icons(built, kept.icons):
            return None
        components = {}
        try:
            for kind in KINDS:  # a kind's records at a time: the records of all three would double a restart's peak memory
                components[kind] = [self.component(kind, record) for record in json.loads(kept.records[kind])]
        except (KeyError, TypeError, ValueError, ValidationError):  # written by this code, so only a damaged store gets here
            log.info("the kept listings of %s are not of this server's shape; they are made again", built.snapshot.root)
            return None
        self._kept = mark
        log.info("listing %s as the last server kept it (nothing changed since)", built.snapshot.root)
        return Listed(mark, kept.icons, components)


def _settled(built: Built, opened_ns: int) -> bool:
    """Whether no template file can have changed unseen by its stamp since this server read it (see the module's docstring)."""
    now = time.time_ns()
    for rel, source in built.snapshot.sources.items():
        if source.stamp is None:
            return False
        changed = source.stamp[3]
        if changed <= opened_ns - RACY_NS:
            continue
        if changed > now - RACY_NS:
            return False
        parsed = built.files.work(rel).digest
        _, text, _ = read_file(built.snapshot.root, source, built.files.limit)
        if parsed is None or text is None or digest(text) != parsed:
            return False
    return True


def _same_icons(built: Built, kept: dict[str, Any]) -> bool:
    """Whether every icon value the kept listings show gives the same icon now (icon files have no stamp in the fingerprint)."""
    return all(_as_kept(built.icon(value)) == then for value, then in kept.items())


def _as_kept(found: Icon | str) -> list | str:
    """What an icon value gave, as JSON keeps it: `[src, mime type]`, or why it gave no icon."""
    return [found.src, found.mime_type] if isinstance(found, Icon) else found
