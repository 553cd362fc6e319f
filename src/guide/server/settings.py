"""Every setting Guide reads, read once, in one place: `guide serve`'s flags, the other commands', the environment and fastmcp.json alike.

The settings are the fields of `Settings`; each field says once what the setting
means, how its text becomes a value, and its default. Its variable (`GUIDE_` and
the name in capitals) and its flag (`--` and the name with dashes, for the
settings `guide serve` takes as options) follow from the field's name, and
`SETTINGS` is the table derived from the fields.

A flag wins over its environment variable, and a variable over the default;
`fastmcp run fastmcp.json` has no flags, so there the environment is all. A
value that is malformed (a key too short to seal with, a time that is not a
number, a docroot that is not a folder) stops the command with one line naming
the variable (or flag) and what is accepted. A `GUIDE_*` variable that no
setting reads but resembles one also stops it ("did you mean"), and so does any
unknown `GUIDE_AUTH_*` variable with a value: a typo must not leave a setting
at its default unnoticed, nor a server open.

This module reads and checks; what the values become (a token verifier,
sealing keys) is made where they are used, except the docroot every command
opens the same way (`open_docroot`). It is the one module that
reads the process environment (`tests/test_style.py` holds every other to
that). It loads nothing heavy, so `guide serve --help` can list the settings
without loading the MCP stack.
"""

import ipaddress
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import Any

from guide.clients import CEILING, UNREAD_DECLINE
from guide.docroot.files import MAX_FILE_SIZE
from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store
from guide.errors import GuideError
from guide.examples import DOCROOT as EXAMPLE_DOCROOT
from guide.protocol import DEFAULT_CACHE_TTL
from guide.render import MAX_OUTPUT
from guide.spelling import near_miss

PREFIX = "GUIDE_"
AUTH_PREFIX = "GUIDE_AUTH_"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TRANSPORTS = ("stdio", "http")
MIN_KEY_LENGTH = 32
DEFAULT_PRINCIPAL_CLAIM = "sub"
_SPEC = "guide.setting"


@dataclass(frozen=True)
class Setting:
    """One setting: where it is read from, what it means, how its text becomes a value, and its default."""

    name: str
    meaning: str
    read: Callable[[str], Any]
    default: Any
    metavar: str | None = None
    """What a value looks like after `guide serve`'s option (None: no option, the environment only)."""
    secret: bool = False
    """Its value is never repeated in a message."""
    shown: str | None = None
    """The default as `--help` says it, when the value itself does not say it (a folder found at run time, an empty list)."""

    @property
    def variable(self) -> str:
        """The environment variable that gives it."""
        return PREFIX + self.name.upper()

    @property
    def flag(self) -> str | None:
        """The `guide serve` option that gives it (None: the environment only)."""
        return "--" + self.name.replace("_", "-") if self.metavar else None

    @property
    def described(self) -> str:
        """What it means, and its default (inside the meaning's closing parenthesis, if it ends with one)."""
        if self.meaning.endswith(")"):
            return f"{self.meaning[:-1]}; default: {self.default_text})"
        return f"{self.meaning} (default: {self.default_text})"

    @property
    def default_text(self) -> str:
        """The default as a user would write it, or what it stands for."""
        if self.shown is not None:
            return self.shown
        if isinstance(self.default, bool):
            return "1" if self.default else "0"
        if isinstance(self.default, float):
            return f"{self.default:g}"
        return str(self.default)


def _setting(default: Any, meaning: str, read: Callable[[str], Any], *, metavar: str | None = None, secret: bool = False,
             shown: str | None = None) -> Any:
    """A field of `Settings`: its default, and the rest of its row in the table."""
    return field(default=default, metadata={_SPEC: (meaning, read, metavar, secret, shown)})


def _number(kind: type, *, positive: bool = True) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > 0 if positive else value >= 0)):
            raise ValueError("a number greater than 0" if positive else "a number, 0 or more")
        return value

    return read


def _bound(most: float) -> Callable[[str], float]:
    def read(text: str) -> float:
        value = _number(float, positive=False)(text)
        if value > most:
            raise ValueError(f"a number from 0 to {most:g}")
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


def _path(text: str) -> Path:
    return Path(text.strip()).expanduser()


def _text(text: str) -> str:
    return text.strip()


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


def switch(text: str) -> bool:
    """The one reading of an on/off setting: 1, true or yes is on; 0, false, no or nothing is off."""
    value = text.strip().lower()
    if value not in ("", "0", "1", "true", "false", "yes", "no"):
        raise ValueError("1 or 0")
    return value in ("1", "true", "yes")


@dataclass(frozen=True)
class Settings:
    """The settings of one command, as read; each field is one setting (see `SETTINGS`)."""

    docroot: Path = _setting(EXAMPLE_DOCROOT, "the docroot folder", _folder, metavar="DIR", shown="the bundled example")
    project: Path | None = _setting(None, "the project folder whose workflow state file names the phase", _folder, metavar="DIR",
                                    shown="the working folder")
    projects_under: Path | None = _setting(None, "a folder of projects: a read may name one inside it with project=<absolute path> "
                                           "(prompt flag --project; a legacy client by its one root inside it) for its workflow phase",
                                           _folder, metavar="DIR", shown="none, one project")
    transport: str = _setting("stdio", "stdio, or streamable HTTP at /mcp", _choice(TRANSPORTS), metavar="stdio|http")
    host: str = _setting("127.0.0.1", "the HTTP host to listen on", _text, metavar="HOST")
    port: int = _setting(8000, "the HTTP port", _number(int), metavar="PORT")
    log_level: str = _setting("INFO", "what the server logs to stderr", _choice(LOG_LEVELS, upper=True), metavar="LEVEL")
    cache_ttl: int = _setting(DEFAULT_CACHE_TTL, "seconds 2026-07-28 clients may cache listings and content that never asks (0: no hint)",
                              _number(int, positive=False), metavar="SECONDS")
    max_file_size: int = _setting(MAX_FILE_SIZE, "the largest docroot file served, in bytes", _number(int), metavar="BYTES")
    max_output: int = _setting(MAX_OUTPUT, "the most characters one render may produce", _number(int), metavar="CHARS")
    answer_timeout: float = _setting(600.0, "seconds a legacy read waits for the client to answer one form", _number(float), metavar="SECONDS")
    unread_decline: float = _setting(UNREAD_DECLINE, "seconds: a form declined sooner than this after it was asked was declined by no person, and the read "
                                     f"goes on as for a client without forms (at most {CEILING:g}; 0: every decline is a person's)",
                                     _bound(CEILING), metavar="SECONDS")
    list_page_size: int = _setting(0, "items per page of a listing (0: one page, since not every client follows nextCursor)",
                                   _number(int, positive=False), metavar="ITEMS")
    max_connections: int = _setting(1024, "HTTP connections open at once; more are closed as they come, and the file descriptor limit lowers it",
                                    _number(int))
    request_timeout: float = _setting(30.0, "seconds an HTTP client has to send a whole request, head and body", _number(float))
    max_sessions: int = _setting(10_000, "legacy HTTP sessions open at once, an eighth of them for one client (as many as the MCP SDK keeps)",
                                 _number(int))
    forwarded_allow_ips: tuple[str, ...] = _setting((), "proxies whose X-Forwarded-For names the client in the log (IPs or networks, "
                                                    "comma-separated)", _addresses, metavar="IPS", shown="none")
    app_forms: bool = _setting(True, "1 shows forms as Guide's MCP App to clients that declare MCP Apps but no forms; 0 turns that off "
                               "(they get the agent's questions)", switch, metavar="1|0")
    state_keys: tuple[str, ...] = _setting((), f"keys that seal continuation state, comma-separated, {MIN_KEY_LENGTH}+ bytes each "
                                           "(the first seals, all unseal)", _keys, secret=True, shown="a key of this process")
    state_ttl: float = _setting(600.0, "seconds a continuation state stays valid", _number(float))
    allowed_hosts: tuple[str, ...] = _setting((), "more Host names HTTP requests may carry (comma-separated, * patterns)", _names, shown="none")
    allowed_origins: tuple[str, ...] = _setting((), "more Origins HTTP requests may come from (comma-separated, * patterns)", _names,
                                                shown="none")
    cache_dir: Path | None = _setting(None, "where Guide keeps parses, listings and check reports", _path, shown="the user cache folder")
    no_cache: bool = _setting(False, "1 keeps nothing in the cache folder", switch)
    metrics: bool = _setting(False, "1 serves counters at GET /metrics in Prometheus text format (HTTP; behind the same token as /mcp)",
                             switch, metavar="1|0")
    access_log: bool = _setting(True, "1 logs a line per read at INFO: principal, address without values, outcome, time", switch,
                                metavar="1|0")
    # Access (guide.server.auth): None is "not set", so that a setting given where it does not apply can be refused.
    auth_tokens: str | None = _setting(None, "static bearer tokens, name:token,... (each name is a principal; tokens of 32+ characters)",
                                       _text, secret=True, shown="none: open access")
    auth_jwks_uri: str | None = _setting(None, "JWTs: the https address of the signing keys (RS256 and other asymmetric algorithms)", _text,
                                         shown="none")
    auth_public_key: str | None = _setting(None, "JWTs: the public key, as PEM text or a PEM file's path", _text, shown="none")
    auth_secret: str | None = _setting(None, "JWTs: the shared secret of HS256/384/512 (at least as many bytes as the hash)", _text,
                                       secret=True, shown="none")
    auth_secret_file: str | None = _setting(None, "JWTs: a file whose content is the shared secret", _text, shown="none")
    auth_issuer: str | None = _setting(None, "JWTs: the iss claim a token must carry", _text, shown="none")
    auth_audience: str | None = _setting(None, "JWTs: the aud claim a token must carry", _text, shown="none")
    auth_algorithm: str | None = _setting(None, "JWTs: the signing algorithm", _text, shown="HS256 with a secret, else RS256")
    auth_principal_claim: str | None = _setting(None, "JWTs: the claim naming the principal", _text, shown=DEFAULT_PRINCIPAL_CLAIM)
    auth_allow_no_expiry: bool | None = _setting(None, "JWTs: 1 accepts tokens without exp (unsafe: such a token never expires)", switch,
                                                 shown="0")


def _row(spec: Field) -> Setting:
    meaning, read, metavar, secret, shown = spec.metadata[_SPEC]
    return Setting(spec.name, meaning, read, spec.default, metavar, secret, shown)


SETTINGS = tuple(_row(spec) for spec in fields(Settings))
"""The table: one row per field of `Settings`, in their order."""
SETTING = {setting.name: setting for setting in SETTINGS}
"""The rows by setting name."""


def read_settings(flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] = os.environ) -> Settings:
    """The settings from `flags` (a command's options by setting name; None where not given) and the environment.

    Raises `GuideError` with one line for a value that is malformed, or a
    `GUIDE_*` variable that is not a setting but resembles one (or is an
    unknown `GUIDE_AUTH_*` one).
    """
    flags = flags or {}
    _refuse_unknown(environ)
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        given = flags.get(setting.name)
        if given is not None:
            values[setting.name] = _parsed(setting, str(given), setting.flag or setting.variable)
        elif environ.get(setting.variable, "").strip():
            values[setting.name] = _parsed(setting, environ[setting.variable], setting.variable)
    return Settings(**values)


def open_docroot(settings: Settings) -> Docroot:
    """The docroot the settings name, its parses kept in the store they choose."""
    store = Store.chosen(settings.cache_dir, off=settings.no_cache)
    return Docroot(settings.docroot, max_file_size=settings.max_file_size, store=store)


def child_environment(defaults: Mapping[str, str]) -> dict[str, str]:
    """The environment for a Guide process this one starts: this process's, over `defaults`."""
    return {**defaults, **os.environ}


def environment_help() -> str:
    """Every setting's variable, meaning, default and flag, one line each (for `guide serve --help`)."""
    rows = [(setting.variable, setting.described + (f"; flag {setting.flag}" if setting.flag else "")) for setting in SETTINGS]
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name.ljust(width)}  {meaning}" for name, meaning in rows]
    return "environment (a flag wins over its variable, a variable over the default):\n" + "\n".join(lines)


def _parsed(setting: Setting, text: str, where: str) -> Any:
    try:
        return setting.read(text)
    except ValueError as error:
        shown = "its value" if setting.secret else repr(text.strip()[:200])
        raise GuideError(f"{where}: {shown} is not {error}") from None


def _refuse_unknown(environ: Mapping[str, str]) -> None:
    known = [setting.variable for setting in SETTINGS]
    for name, value in environ.items():
        if not name.startswith(PREFIX) or name in known:
            continue
        guess = near_miss(name, known)
        if guess:
            raise GuideError(f"{name} is not a Guide setting; did you mean {guess}?")
        if name.startswith(AUTH_PREFIX) and value.strip():  # an access setting misspelt beyond a near miss would leave a server open
            access = ", ".join(variable for variable in known if variable.startswith(AUTH_PREFIX))
            raise GuideError(f"{name} is not a Guide setting; the {AUTH_PREFIX}* settings are {access}")
