"""URL-mode steps (C5 turn 4): a form that sends the person to a page, where Guide never sees what they enter.

A URL form declares `mode: url`, a `message` and a `url` instead of a `schema`.
The `url` is a Mustache template over what is known when the step is asked
(`kwargs`, `args`, `elicitation.opened.<form>`, `elicitation.defaulted_forms.<form>`).
The link it renders must be `https` (or `http` on a loopback host), carry no
user name or password, and have its host listed under `url-hosts:` in
guide.yaml. A URL step supplies no field; it is asked once no form declared
before it is pending, so its link sees their answers.

Hostile input: the values come from callers. `{{name}}` percent-encodes a value,
so it cannot leave the path segment or query value it is written in;
`{{{name}}}` inserts it as written, and the host check still holds. Lists are
joined with commas (a template cannot loop over a caller's list), partials are
never read, and a link stops at `MAX_LINK_LENGTH` characters while it renders.
"""

import ipaddress
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import mstache

from guide.text import clip, template_text

URL_MODE = "url"
MODES = ("form", URL_MODE)
MAX_LINK_LENGTH = 8192
"""The most characters a rendered link may have; the render stops as soon as it passes them."""
LINK_ROOTS = frozenset({"kwargs", "args", "elicitation", "."})
"""What a link template may look up (C9's names known when a step is asked)."""
_HOST_NAME = r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*"
_HOST_ENTRY = re.compile(rf"(\*\.)?{_HOST_NAME}")
_HOST = re.compile(rf"{_HOST_NAME}\.?")
_LOOPBACK_NAMES = frozenset({"localhost"})
_NAMED = re.compile(r"\bkwargs\.([A-Za-z0-9][A-Za-z0-9_-]*)")


@dataclass(frozen=True)
class UrlQuestion:
    """A URL step to send to the client: its form id, message and the rendered link (no schema: nothing comes back but the action)."""

    form: str
    message: str
    url: str


class LinkRefused(ValueError):
    """A link template rendered to something Guide will not send; the message says what and what is accepted."""


def read_url_form(declaration: Mapping[str, Any]) -> tuple[str | None, list[tuple[tuple[str, ...], str]]]:
    """The `url` of a `mode: url` declaration, with each problem (keys from the form, message)."""
    issues = []
    if "schema" in declaration:
        issues.append((("schema",), "a `mode: url` form has no `schema`: the person answers on the page and Guide never sees it; "
                                    "remove `schema` (ask for other values in a form of their own)"))
    url = declaration.get("url")
    if not isinstance(url, str) or not url.strip():
        issues.append((("url",), "a `mode: url` form needs a non-empty string `url`: the https address (a Mustache template) to send the person to"))
        return None, issues
    return url.strip(), issues


def form_mode_issues(declaration: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    """What a declaration that is not `mode: url` gets wrong about modes: an unknown `mode`, or a `url` without `mode: url`."""
    mode = declaration.get("mode", "form")
    if mode not in MODES:
        return [(("mode",), f"unknown mode {clip(str(mode))!r}; accepted: {', '.join(MODES)} (`mode: url` sends the person to a page)")]
    if "url" in declaration:
        return [(("url",), "`url` belongs to a `mode: url` form; add `mode: url` (and remove `schema`) or remove `url`")]
    return []


def named_fields(template: str) -> set[str]:
    """The fields a link template names (`kwargs.<name>`), wherever it names them."""
    return set(_NAMED.findall(template))


def opened_steps(forms: Sequence[Any], completed: Collection[str], defaulted: Collection[str]) -> frozenset[str]:
    """The URL steps among `forms` the person accepted to open (`elicitation.opened.<form>`), not those that took their fallback."""
    return frozenset(form.id for form in forms if form.url is not None and form.id in completed and form.id not in defaulted)


def link_context(known: Mapping[str, Any], args: Sequence[str], opened: Collection[str], defaulted: Collection[str]) -> dict[str, Any]:
    """What a link template sees: the values known, the args and which steps were opened or defaulted (lists as one text)."""
    kwargs = {name: ",".join(map(template_text, value)) if isinstance(value, (list, tuple)) else value for name, value in known.items()}
    return {
        "kwargs": kwargs,
        "args": ",".join(args),
        "elicitation": {"opened": {form: True for form in opened}, "defaulted_forms": {form: True for form in defaulted}},
    }


def render_link(template: str, context: Mapping[str, Any], hosts: Sequence[str]) -> str:
    """The link a template renders with `context`, checked against `hosts`; `LinkRefused` says why it cannot be sent."""
    chunks, length = [], 0
    try:
        for chunk in mstache.stream(template, context, resolver=_no_partial, getter=_plain_getter, stringify=_stringify,
                                    escape=_percent, strict=True, cache={}):
            length += len(chunk)
            if length > MAX_LINK_LENGTH:
                raise LinkRefused(f"the link would be longer than {MAX_LINK_LENGTH} characters; give shorter values")
            chunks.append(chunk)
    except mstache.TokenException as error:
        raise LinkRefused(f"its url template cannot be read ({clip(str(error).splitlines()[0], 120)}); guide check names the line") from None
    link = "".join(chunks).strip()
    problem = link_problem(link, hosts)
    if problem:
        raise LinkRefused(f"the link {clip(link, 200)} {problem}")
    return link


def link_problem(link: str, hosts: Sequence[str]) -> str | None:
    """Why `link` may not be sent (None when it may): its scheme, user part or host."""
    if any(character.isspace() or ord(character) < 32 or ord(character) == 127 for character in link):
        return "holds white space or control characters; percent-encode them ({{name}} does)"
    if "\\" in link:
        return "holds a backslash, which a browser reads as a slash (the host it opens is not the one written); percent-encode it"
    try:
        parts = urlsplit(link)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - reading it checks it
    except ValueError as error:
        return f"is not a valid address ({error})"
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        return f"has scheme {clip(scheme, 20) or 'none'}; accepted: https (or http on a loopback host)"
    if not host:
        return "names no host; accepted: https://<host listed under url-hosts>/..."
    if parts.username is not None or parts.password is not None:
        return "carries a user name or password before its host; a link never does (it hides the host it goes to)"
    if not _HOST.fullmatch(host) and _ip(host) is None:
        return f"names host {clip(host, 80)}, which is not a plain host name (letters, digits, '-' and '.') or an IP address"
    if scheme == "http" and not is_loopback(host):
        return f"uses http on {clip(host, 80)}; http is accepted on a loopback host only (localhost, 127.0.0.1, ::1), else use https"
    if not host_listed(host, hosts):
        listed = ", ".join(hosts) if hosts else "none are listed"
        return f"goes to host {clip(host, 80)}, which is not listed under url-hosts in guide.yaml ({clip(listed, 200)})"
    return None


def static_link_problem(template: str, hosts: Sequence[str]) -> str | None:
    """What is wrong with a link template before any value is known: its scheme and host, where they are written out."""
    if "{{" not in template:
        return link_problem(template.strip(), hosts)
    scheme, found, rest = template.split("{{", 1)[0].partition("://")
    if not found:
        return None  # the scheme comes from a value: only the rendered link can be checked
    if scheme.lower() not in ("https", "http"):
        return link_problem(f"{scheme}://localhost/", ["localhost"])
    end = re.search(r"[/?#]", rest)
    if end is None:
        return None  # the host comes from a value
    return link_problem(f"{scheme}://{rest[:end.start()]}/", hosts)


def host_listed(host: str, hosts: Sequence[str]) -> bool:
    """Whether a host is on the allow-list: named exactly, or under a `*.domain` entry (a subdomain, not the domain itself)."""
    host = host.lower().rstrip(".")
    return any(host == entry or (entry.startswith("*.") and host.endswith(entry[1:])) for entry in hosts)


def host_entry_problem(entry: Any) -> str | None:
    """Why a `url-hosts` entry is not a host name, an IP address or `*.domain` (None when it is one)."""
    if not isinstance(entry, str) or not entry:
        return f"{entry!r} is not a host name"
    if _HOST_ENTRY.fullmatch(entry) or _ip(entry.strip("[]")) is not None:
        return None
    return f"{clip(entry, 80)!r} is not a host name in lower case, an IP address or *.domain (no scheme, port or path)"


def is_loopback(host: str) -> bool:
    """Whether a host is this machine: `localhost` or a loopback address."""
    address = _ip(host.strip("[]"))
    return host.lower().rstrip(".") in _LOOPBACK_NAMES or (address is not None and address.is_loopback)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _no_partial(name: Any) -> None:
    """A link reads no partial: `{{>name}}` renders nothing (guide check reports it)."""
    return None


def _plain_getter(scope: Any, scopes: Any, key: Any, default: Any = None) -> Any:
    """The engine's strict lookup; a method is never called (it counts as missing)."""
    value = mstache.default_strict_getter(scope, scopes, key, default)
    return default if callable(value) else value


def _stringify(value: Any, text: bool) -> bytes:
    return value if isinstance(value, bytes) else template_text(value).encode()


def _percent(text: bytes) -> bytes:
    """`{{name}}` in a link: the value percent-encoded, every reserved character included."""
    return quote(text, safe="").encode()


def unopened(form: str, link: str) -> str:
    """The one line of a URL step this client cannot open (C7.6): the link to give the person."""
    return (f"form {form} sends the person to a page, and this client cannot open URL-mode requests; give the person this link: {link}"
            " (this read goes on only in a client that opens links, or with `fallback: render` on the form)")
