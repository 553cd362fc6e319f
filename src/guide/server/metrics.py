"""What an operator sees of the reads: counters scraped at `GET /metrics` (Prometheus text format) and one access line per read.

Every read runs inside `Metrics.reading`, which knows its era and its channel
(`native`: forms asked by the protocol; a new channel passes its own name; each
round of the App form's tools is a read of channel `app`), and
records, wherever the read goes, through the functions below (`resolved`,
`form_asked`, `form_answered`, `unread_decline`): they find the read they belong to in a context
variable, so the eras and the service need no handle on the counters. The
counters live in a registry of the server's own (never the process-wide one),
so servers in one process never mix their numbers.
"""

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from contextvars import ContextVar
from functools import partial
from typing import Any

from fastmcp.server.dependencies import get_access_token

from guide.errors import AuthoringError, GuideError, NotFoundError, UnavailableError
from guide.text import for_log

FORM_EVENTS = {"accept": "answered", "decline": "declined", "cancel": "cancelled"}
"""The name each elicitation action is counted under."""
BUILD_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

access_log = logging.getLogger("guide.access")


class Reading:
    """One read as it is served (a context manager): what it read, as far as it got, its era and channel, how it ended."""

    __slots__ = ("metrics", "era", "channel", "client", "described", "kind", "outcome", "started", "_token")

    def __init__(self, metrics: "Metrics", era: str, channel: str, described: str, client: str = ""):
        self.metrics = metrics
        self.era = era
        self.channel = channel
        self.client = client
        """The row of the client table that names the read's client (`other`: none; empty: not asked)."""
        self.described = described
        self.kind = "unknown"
        self.outcome = "ok"
        self.started = 0.0

    @property
    def counters(self) -> "Counters | None":
        """The server's counters; None when `/metrics` is off."""
        return self.metrics.counters

    def __enter__(self) -> "Reading":
        self.started = time.perf_counter()
        self._token = _current.set(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        _current.reset(self._token)
        if error is not None:
            # A cancelled read was abandoned (the client went away, the server stops); it did not fail.
            self.outcome = f"failed ({failure_reason(error)})" if isinstance(error, Exception) else "abandoned"
        self.metrics.record(self)


_current: ContextVar[Reading | None] = ContextVar("guide_reading", default=None)
_UNOBSERVED = nullcontext()


class Counters:
    """The server's counters and gauges, in its own registry."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram  # imported here: 20 ms of a start without metrics

        self.registry = CollectorRegistry(auto_describe=True)
        labels = ("era", "channel")
        self.reads = Counter("guide_reads", "Reads served, by what was read", ("kind", *labels), registry=self.registry)
        self.failures = Counter("guide_read_failures", "Reads that failed, by reason (docs/errors.md)", ("reason", *labels), registry=self.registry)
        self.forms = Counter("guide_forms", "Forms asked, and answered, declined or cancelled", ("event", *labels), registry=self.registry)
        self.unread = Counter("guide_unread_declines", "Declines no person made (sooner than a person reads, or from a client the client "
                              "table marks): the read went on as for a client without forms", ("client", "era"), registry=self.registry)
        self.listen = Gauge("guide_listen_streams", "Listen streams open now", ("era",), registry=self.registry)
        self.ready = Gauge("guide_docroot_ready", "1 while the docroot is loaded and its folder present, else 0", registry=self.registry)
        self.entries = Gauge("guide_docroot_entries", "Commands, skills, partials and documents in the docroot's snapshot", ("kind",),
                             registry=self.registry)
        self.store = Gauge("guide_store_usable", "1 while Guide can keep parses in its cache folder, else 0", registry=self.registry)
        self.builds = Histogram("guide_build_seconds", "Seconds to make a snapshot of the docroot", buckets=BUILD_BUCKETS, registry=self.registry)


class Metrics:
    """The metrics of one server: `counters` (None when `/metrics` is off) and whether reads get an access line."""

    def __init__(self, *, counters: Counters | None, access: bool):
        self.counters = counters
        self.access = access

    def reading(self, read: Any, era: str, channel: str = "native", client: str = "") -> "Reading | nullcontext[None]":
        """Serve one read inside `with` this: it is counted, and its access line written, however it ends.

        `client` is the row of the client table naming the read's client. With nothing to count and no access line
        to write, nothing is kept (a read pays for no description).
        """
        if self.counters is None and not (self.access and access_log.isEnabledFor(logging.INFO)):
            return _UNOBSERVED
        return Reading(self, era, channel, describe(read), client)

    def record(self, reading: Reading) -> None:
        """Count a read that ended, and write its access line."""
        if self.counters is not None:
            self.counters.reads.labels(reading.kind, reading.era, reading.channel).inc()
            if reading.outcome.startswith("failed"):
                reason = reading.outcome[len("failed (") : -1]
                self.counters.failures.labels(reason, reading.era, reading.channel).inc()
        if self.access and access_log.isEnabledFor(logging.INFO):
            elapsed = (time.perf_counter() - reading.started) * 1000
            access_log.info(
                "%s read %s (%s, %s): %s in %.1f ms", for_log(principal()), for_log(reading.described), reading.era, reading.channel, reading.outcome, elapsed
            )


def resolved(kind: str, uri: str | None = None, names: Any = (), args: int = 0) -> None:
    """Say what the current read turned out to read (`command`, `skill`, `document`, `help`), and for an entrypoint its address,
    keyword names and count of args (the access line shows no value)."""
    reading = _current.get()
    if reading is not None:
        reading.kind = kind
        if uri is not None:
            reading.described = without_values(uri, names, args)


def ended(outcome: str) -> None:
    """Say how the current read ended when it did not simply render (`asked`: it returned forms to answer; `failed (reason)`)."""
    reading = _current.get()
    if reading is not None:
        reading.outcome = outcome


def form_asked(count: int = 1) -> None:
    """Count forms the current read asks."""
    reading = _current.get()
    if reading is not None and reading.counters is not None:
        reading.counters.forms.labels("asked", reading.era, reading.channel).inc(count)


def form_answered(action: str) -> None:
    """Count a person's answer to a form: `accept`, `decline` or `cancel`."""
    reading = _current.get()
    if reading is not None and reading.counters is not None and action in FORM_EVENTS:
        reading.counters.forms.labels(FORM_EVENTS[action], reading.era, reading.channel).inc()


def unread_decline() -> None:
    """Count a decline the current read took for no person's, under its client's row of the client table."""
    reading = _current.get()
    if reading is not None and reading.counters is not None:
        reading.counters.unread.labels(reading.client or "other", reading.era).inc()


def failure_reason(error: BaseException) -> str:
    """The reason a read failed, for the counters: the failure's `reason` (docs/errors.md) or the kind of error."""
    data = getattr(error, "data", None)
    if isinstance(data, dict) and isinstance(data.get("reason"), str):
        return data["reason"]
    kinds: tuple[tuple[type, str], ...] = ((AuthoringError, "authoring"), (UnavailableError, "unavailable"), (NotFoundError, "not-found"))
    found = next((name for kind, name in kinds if isinstance(error, kind)), None)
    return found or ("refused" if isinstance(error, GuideError) else "unexpected")


def describe(read: Any) -> str:
    """A read as the access line names it: its address or prompt with the keyword names but never their values."""
    uri = getattr(read, "uri", None)
    if uri is not None:
        base, _, query = uri.partition("?")
        return without_values(base[:200], (part.partition("=")[0] for part in query.split("&") if part))
    command = getattr(read, "command", None)
    if command is not None:
        return without_values(f"prompt {command[:200]}", (name for name, _ in read.arguments))
    return "prompt guide"


def without_values(base: str, names: Any, args: int = 0) -> str:
    """An address with keyword names only (`guide://_review?mode&reference`), and how many args it had."""
    listed = sorted({name[:60] for name in names})
    shown = f"{base}?{'&'.join(listed)}" if listed else base
    return f"{shown} ({args} arg{'' if args == 1 else 's'})" if args else shown


def principal() -> str:
    """Who reads: the principal of the request's bearer token (HTTP with auth), else `-`."""
    token = get_access_token()
    if token is None:
        return "-"
    return str(getattr(token, "subject", None) or token.client_id or "-")[:100]


ENTRY_KINDS = ("command", "skill", "partial", "document")


def watch_state(counters: Counters, *, listen: Callable[[], dict[str, int]], ready: Callable[[], bool],
                entries: Callable[[], dict[str, int]], store: Callable[[], bool]) -> None:
    """Read the gauges of state when scraped (nothing is counted between scrapes)."""
    for era in listen():
        counters.listen.labels(era).set_function(partial(_item, listen, era))
    for kind in ENTRY_KINDS:
        counters.entries.labels(kind).set_function(partial(_item, entries, kind))
    counters.ready.set_function(lambda: 1 if ready() else 0)
    counters.store.set_function(lambda: 1 if store() else 0)


def _item(source: Callable[[], dict[str, int]], key: str) -> float:
    return source().get(key, 0)
