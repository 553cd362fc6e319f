"""Every setting a Guide server reads, read once, in one place: `guide serve`'s flags, the environment and fastmcp.json alike.

A flag wins over its environment variable, and a variable over the default;
`fastmcp run fastmcp.json` has no flags, so there the environment is all. A
value that is malformed (a key too short to seal with, a time that is not a
number, a JWKS address that is not https, a docroot that is not a folder) stops
the start with one line naming the variable (or flag) and what is accepted. A
`GUIDE_*` variable that no setting reads but resembles one also stops it
("did you mean"): a typo must not leave a setting at its default unnoticed.

This module only reads and checks; what the values become (a token verifier,
sealing keys, a store) is made where they are used. It loads nothing heavy, so
`guide serve --help` can list the variables without loading the MCP stack.
"""

import ipaddress
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guide.docroot.files import MAX_FILE_SIZE
from guide.docroot.store.disk import CACHE_DIR_VARIABLE, NO_CACHE_VARIABLE
from guide.errors import GuideError
from guide.examples import DOCROOT as EXAMPLE_DOCROOT
from guide.protocol import DEFAULT_CACHE_TTL
from guide.render import MAX_OUTPUT
from guide.spelling import near_miss

PREFIX = "GUIDE_"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TRANSPORTS = ("stdio", "http")
MIN_KEY_LENGTH = 32
DEFAULT_ANSWER_TIMEOUT = 600.0
DEFAULT_STATE_TTL = 600.0
DEFAULT_MAX_CONNECTIONS = 1024
DEFAULT_REQUEST_TIMEOUT = 30.0
DEFAULT_MAX_SESSIONS = 10_000
AUTH = {
    "GUIDE_AUTH_TOKENS": "static bearer tokens, name:token,... (each name is a principal; tokens of 32+ characters)",
    "GUIDE_AUTH_JWKS_URI": "JWTs: the https address of the signing keys (RS256 and other asymmetric algorithms)",
    "GUIDE_AUTH_PUBLIC_KEY": "JWTs: the public key, as PEM text or a PEM file's path",
    "GUIDE_AUTH_SECRET": "JWTs: the shared secret of HS256/384/512 (at least as many bytes as the hash)",
    "GUIDE_AUTH_SECRET_FILE": "JWTs: a file whose content is the shared secret",
    "GUIDE_AUTH_ISSUER": "JWTs: the iss claim a token must carry",
    "GUIDE_AUTH_AUDIENCE": "JWTs: the aud claim a token must carry",
    "GUIDE_AUTH_ALGORITHM": "JWTs: the signing algorithm (default RS256, or HS256 with a secret)",
    "GUIDE_AUTH_PRINCIPAL_CLAIM": "JWTs: the claim naming the principal (default sub)",
    "GUIDE_AUTH_ALLOW_NO_EXPIRY": "JWTs: 1 accepts tokens without exp (unsafe: such a token never expires)",
}
"""The access-token variables, read by `guide.server.auth` from `Settings.auth`."""


@dataclass(frozen=True)
class Setting:
    """One setting: where it is read from, what it means, and how its text becomes a value."""

    name: str
    variable: str
    meaning: str
    read: Callable[[str], Any]
    default: Any = None
    flag: str | None = None
    """The `guide serve` option that gives it (None: the environment only)."""
    metavar: str | None = None
    secret: bool = False
    """Its value is never repeated in a message."""


def _number(kind: type, *, positive: bool = True, unlimited: str | None = None) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        if unlimited is not None and text.strip().lower() == unlimited:
            return None
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > 0 if positive else value >= 0)):
            accepted = "a number greater than 0" if positive else "a number, 0 or more"
            raise ValueError(f"{accepted}{f' (or {unlimited})' if unlimited else ''}")
        return value

    return read


def _choice(choices: tuple[str, ...], *, upper: bool = False) -> Callable[[str], str]:
    def read(text: str) -> str:
        value = text.strip().upper() if upper else text.strip()
        if value not in choices:
            raise ValueError(f"one of {', '.join(choices)}")
        return value

    return read


def _folder(text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_dir():
        raise ValueError("a folder")
    return path


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _addresses(text: str) -> tuple[str, ...]:
    names = _names(text)
    for name in names:
        if name != "*":
            try:
                ipaddress.ip_network(name, strict=False)
            except ValueError:
                raise ValueError("a list of IP addresses or networks (comma-separated), or *") from None
    return names


def _keys(text: str) -> tuple[str, ...]:
    keys = _names(text)
    short = next((number for number, key in enumerate(keys, start=1) if len(key.encode()) < MIN_KEY_LENGTH), None)
    if short is not None:
        raise ValueError(f"a list of keys of at least {MIN_KEY_LENGTH} bytes each, comma-separated (key {short} is shorter)")
    return keys


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value not in ("", "0", "1", "true", "false", "yes", "no"):
        raise ValueError("1 or 0")
    return value in ("1", "true", "yes")


SETTINGS = (
    Setting("docroot", "GUIDE_DOCROOT", "the docroot folder (default: the bundled example)", _folder, EXAMPLE_DOCROOT, "--docroot", "DIR"),
    Setting("project", "GUIDE_PROJECT", "the project folder whose workflow state file names the phase (default: the working folder)",
            _folder, None, "--project", "DIR"),
    Setting("projects_under", "GUIDE_PROJECTS_UNDER", "a folder of projects: a read may name one inside it with project=<absolute path> "
            "(prompt flag --project; a legacy client by its one root inside it) for its workflow phase (default: none, one project)",
            _folder, None, "--projects-under", "DIR"),
    Setting("transport", "GUIDE_TRANSPORT", "stdio, or streamable HTTP at /mcp", _choice(TRANSPORTS), "stdio", "--transport", "stdio|http"),
    Setting("host", "GUIDE_HOST", "the HTTP host to listen on (default: 127.0.0.1)", str.strip, "127.0.0.1", "--host", "HOST"),
    Setting("port", "GUIDE_PORT", "the HTTP port (default: 8000)", _number(int), 8000, "--port", "PORT"),
    Setting("log_level", "GUIDE_LOG_LEVEL", "what the server logs to stderr (default: INFO)", _choice(LOG_LEVELS, upper=True), "INFO",
            "--log-level", "LEVEL"),
    Setting("cache_ttl", "GUIDE_CACHE_TTL", f"seconds 2026-07-28 clients may cache listings and content that never asks (0: no hint; "
            f"default: {DEFAULT_CACHE_TTL})", _number(int, positive=False), DEFAULT_CACHE_TTL, "--cache-ttl", "SECONDS"),
    Setting("max_file_size", "GUIDE_MAX_FILE_SIZE", f"the largest docroot file served, in bytes (default: {MAX_FILE_SIZE})",
            _number(int), MAX_FILE_SIZE, "--max-file-size", "BYTES"),
    Setting("max_output", "GUIDE_MAX_OUTPUT", f"the most characters one render may produce (default: {MAX_OUTPUT})",
            _number(int), MAX_OUTPUT, "--max-output", "CHARS"),
    Setting("answer_timeout", "GUIDE_ANSWER_TIMEOUT", "seconds a legacy read waits for the client to answer one form (default: 600)",
            _number(float), DEFAULT_ANSWER_TIMEOUT, "--answer-timeout", "SECONDS"),
    Setting("list_page_size", "GUIDE_LIST_PAGE_SIZE", "items per page of a listing (default: 0, one page: not every client follows nextCursor)",
            _number(int, positive=False), 0, "--list-page-size", "ITEMS"),
    Setting("max_connections", "GUIDE_MAX_CONNECTIONS", f"HTTP connections open at once; more are closed as they come, and the "
            f"file descriptor limit lowers it (default: {DEFAULT_MAX_CONNECTIONS})", _number(int), DEFAULT_MAX_CONNECTIONS),
    Setting("request_timeout", "GUIDE_REQUEST_TIMEOUT", f"seconds an HTTP client has to send a whole request, head and body "
            f"(default: {DEFAULT_REQUEST_TIMEOUT:g})", _number(float), DEFAULT_REQUEST_TIMEOUT),
    Setting("max_sessions", "GUIDE_MAX_SESSIONS", f"legacy HTTP sessions open at once; one client may hold an eighth of them "
            f"(default: {DEFAULT_MAX_SESSIONS}, the MCP SDK's own limit)", _number(int), DEFAULT_MAX_SESSIONS),
    Setting("forwarded_allow_ips", "GUIDE_FORWARDED_ALLOW_IPS", "proxies whose X-Forwarded-For names the client in the log "
            "(IPs or networks, comma-separated; default: none)", _addresses, (), "--forwarded-allow-ips", "IPS"),
    Setting("app_forms", "GUIDE_APP_FORMS", "1 shows forms as Guide's MCP App to clients that declare MCP Apps but no forms; 0 turns that off "
            "(they get the agent's questions; default: 1)", _switch, True, "--app-forms", "1|0"),
    Setting("state_keys", "GUIDE_STATE_KEYS", f"keys that seal continuation state, comma-separated, {MIN_KEY_LENGTH}+ bytes each "
            "(the first seals, all unseal; default: a key of this process)", _keys, (), secret=True),
    Setting("state_ttl", "GUIDE_STATE_TTL", "seconds a continuation state stays valid (default: 600)", _number(float), DEFAULT_STATE_TTL),
    Setting("allowed_hosts", "GUIDE_ALLOWED_HOSTS", "more Host names HTTP requests may carry (comma-separated, * patterns)", _names, ()),
    Setting("allowed_origins", "GUIDE_ALLOWED_ORIGINS", "more Origins HTTP requests may come from (comma-separated, * patterns)", _names, ()),
    Setting("cache_dir", CACHE_DIR_VARIABLE, "where Guide keeps parses and check reports (default: the user cache folder)",
            lambda text: Path(text).expanduser(), None),
    Setting("no_cache", NO_CACHE_VARIABLE, "1 keeps nothing in the cache folder", _switch, False),
    Setting("metrics", "GUIDE_METRICS", "1 serves counters at GET /metrics in Prometheus text format (HTTP; behind the same token as /mcp; "
            "default: 0)", _switch, False, "--metrics", "1|0"),
    Setting("access_log", "GUIDE_ACCESS_LOG", "1 logs a line per read at INFO: principal, address without values, outcome, time (default: 1)",
            _switch, True, "--access-log", "1|0"),
)
OTHER_VARIABLES = ("FASTMCP_HTTP_HOST_ORIGIN_PROTECTION",)
"""Variables of FastMCP's own that Guide honours (see `guide.server.http`)."""


@dataclass(frozen=True)
class Settings:
    """The settings of one server, as read."""

    docroot: Path = EXAMPLE_DOCROOT
    project: Path | None = None
    projects_under: Path | None = None
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "INFO"
    cache_ttl: int = DEFAULT_CACHE_TTL
    max_file_size: int = MAX_FILE_SIZE
    max_output: int = MAX_OUTPUT
    answer_timeout: float | None = DEFAULT_ANSWER_TIMEOUT
    list_page_size: int = 0
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_sessions: int = DEFAULT_MAX_SESSIONS
    app_forms: bool = True
    forwarded_allow_ips: tuple[str, ...] = ()
    state_keys: tuple[str, ...] = ()
    state_ttl: float = DEFAULT_STATE_TTL
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    cache_dir: Path | None = None
    no_cache: bool = False
    metrics: bool = False
    access_log: bool = True
    auth: Mapping[str, str] = field(default_factory=dict)
    """The `GUIDE_AUTH_*` variables as given (see `AUTH`)."""
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The environment they were read from (FastMCP's own variables are read from it too)."""

    @property
    def store_environment(self) -> dict[str, str]:
        """The cache settings as the store reads them."""
        found = {NO_CACHE_VARIABLE: "1" if self.no_cache else ""}
        return {**found, CACHE_DIR_VARIABLE: str(self.cache_dir)} if self.cache_dir is not None else found


def read_settings(flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] = os.environ) -> Settings:
    """The settings from `flags` (`guide serve`'s options by setting name; None where not given) and the environment.

    Raises `GuideError` with one line for a value that is malformed, or a
    `GUIDE_*` variable that resembles a setting without being one.
    """
    flags = flags or {}
    _refuse_near_misses(environ)
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        given = flags.get(setting.name)
        if given is not None:
            values[setting.name] = _parsed(setting, str(given), setting.flag or setting.variable)
        elif environ.get(setting.variable, "").strip():
            values[setting.name] = _parsed(setting, environ[setting.variable], setting.variable)
        else:
            values[setting.name] = setting.default
    auth = {name: environ[name] for name in AUTH if environ.get(name, "").strip()}
    return Settings(**values, auth=auth, environ=dict(environ))


def environment_help() -> str:
    """Every environment variable Guide reads, with a one-line meaning (for `guide serve --help`)."""
    rows = [(setting.variable, setting.meaning + (f"; flag {setting.flag}" if setting.flag else "")) for setting in SETTINGS]
    rows += list(AUTH.items())
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name.ljust(width)}  {meaning}" for name, meaning in rows]
    return "environment (a flag wins over its variable, a variable over the default):\n" + "\n".join(lines)


def _parsed(setting: Setting, text: str, where: str) -> Any:
    try:
        return setting.read(text)
    except ValueError as error:
        shown = "its value" if setting.secret else repr(text.strip()[:200])
        raise GuideError(f"{where}: {shown} is not {error}") from None


def _refuse_near_misses(environ: Mapping[str, str]) -> None:
    known = [setting.variable for setting in SETTINGS] + list(AUTH)
    for name in environ:
        if name.startswith(PREFIX) and name not in known:
            guess = near_miss(name, known)
            if guess:
                raise GuideError(f"{name} is not a Guide setting; did you mean {guess}?")
