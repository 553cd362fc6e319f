"""Field names and titles that say a field holds a secret (C5): forms must never ask for one; a `mode: url` form does.

The MCP specification forbids asking for passwords, API keys, tokens or other
secrets in form mode: every answer lands in the client's transcript and in the
continuation state. A name is read as words (split at `_`, `-`, spaces and
camelCase humps); it is sensitive when the words read so far, run together,
end with one of `SECRET_WORDS`. So `api_key`, `apiKey`, `API-KEY`, `apikey`,
`db_password` and `oauth_token` (its words run together end with `authtoken`)
are caught, while `secretary`, `keyboard`, `tokens`, `max_tokens` and
`token_budget` are not: none of their words ends a secret term.
"""

import re

SECRET_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "secrets",
    "api key",
    "private key",
    "access token",
    "auth token",
    "refresh token",
    "bearer token",
    "session token",
    "credential",
    "credentials",
)
"""The secret terms, each matched with its words run together in any case (`api key` is also `apikey`, `API_KEY`, `api-key`)."""

_RUN_TOGETHER = {term.replace(" ", ""): term for term in SECRET_WORDS}
_RUNS = tuple(_RUN_TOGETHER)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_ANYWHERE = re.compile("|".join(_RUNS), re.IGNORECASE)
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def words(text: str) -> list[str]:
    """The lower-case words of a name or title: split at separators and camelCase humps (`apiKEY` is api, key)."""
    return [word.lower() for word in _WORD.findall(text)]


def secret_term(text: str) -> str | None:
    """The secret term a field name or title ends a word with (`api key` for `github_api_key`), if any."""
    if not _ANYWHERE.search(_SEPARATORS.sub("", text)):  # most names hold no secret term anywhere: no need for words
        return None
    joined = ""
    for word in words(text):
        joined += word
        if joined.endswith(_RUNS):
            return next(term for run, term in _RUN_TOGETHER.items() if joined.endswith(run))
    return None


def url_form_advice(name: str) -> str:
    """A `mode: url` form in one line, as the sensitive-field error shows it (C5): the page takes the secret, Guide never does."""
    return (f'`{name}-page: {{mode: url, message: "Enter it on this page; it stays there.", url: "https://accounts.example.com/keys/new"}}`'
            " with that host under `url-hosts:` in guide.yaml")
