"""Issue 21 item 4 (C5): a form field whose name or title says it holds a secret is an authoring error.

The MCP specification forbids asking for secrets in form mode. Both sides of
the word list are tested: names that say secret in any case and with `_`, `-`
or no separator, and names that only contain the letters in another sense.
"""

import pytest
from support.forms import declared, form, issues_of

from guide.forms.secrets import SECRET_WORDS, secret_term

SENSITIVE = [
    "password", "Password", "PASSWORD", "db_password", "dbPassword", "userpassword", "password_confirm", "new-password", "passwd",
    "passphrase", "gpg_passphrase", "secret", "client_secret", "clientSecret", "SECRET_KEY", "secrets",
    "api_key", "api-key", "apikey", "apiKey", "APIKey", "API_KEY", "github_api_key", "openaiApiKey",
    "private_key", "private-key", "privateKey", "PRIVATEKEY", "ssh_private_key",
    "access_token", "accessToken", "ACCESS-TOKEN", "accesstoken", "auth_token", "authToken", "oauth_token", "AUTHTOKEN",
    "refresh_token", "bearer-token", "session_token", "credentials", "aws_credentials", "Credential",
]
HARMLESS = [
    "max_tokens", "token_budget", "tokens", "secretary", "keyboard", "token_count", "monkey", "key", "passage", "passport",
    "passwordless", "secretariat", "api", "private", "access", "author", "api_version", "keys", "primary_key_column", "credit",
]


@pytest.mark.parametrize("name", SENSITIVE)
def test_21_4_a_field_named_for_a_secret_is_an_authoring_error(name):
    [issue] = issues_of({"login": form({name: {"type": "string"}})})
    assert issue.form == "login" and issue.field == name
    assert issue.keys == ("elicitation", "login", "schema", "properties", name)
    assert issue.message.startswith(f"field {name!r} asks for a secret (its name says '")
    assert "MCP specification forbids asking for passwords, API keys, tokens or other secrets in form mode" in issue.message
    assert "ask for it out of band" in issue.message


@pytest.mark.parametrize("name", HARMLESS)
def test_21_4_names_that_only_contain_the_letters_stay_silent(name):
    declared({"settings": form({name: {"type": "string"}})})
    assert secret_term(name) is None


@pytest.mark.parametrize(("title", "term"), [("Your password", "password"), ("GitHub API key", "api key"), ("Access Token", "access token")])
def test_21_4_a_title_that_says_secret_is_an_authoring_error_too(title, term):
    [issue] = issues_of({"login": form({"value": {"type": "string", "title": title}})})
    assert issue.message.startswith(f"field 'value' asks for a secret (its title {title!r} says {term!r})")


@pytest.mark.parametrize("title", ["Maximum tokens", "Token budget", "Secretary of the meeting", "Keyboard layout"])
def test_21_4_a_harmless_title_stays_silent(title):
    declared({"settings": form({"value": {"type": "string", "title": title}})})


@pytest.mark.parametrize("term", SECRET_WORDS)
def test_21_4_every_term_of_the_list_is_caught_with_each_separator(term):
    for spelled in (term.replace(" ", "_"), term.replace(" ", "-"), term.replace(" ", ""), term.upper().replace(" ", "_")):
        assert secret_term(spelled) == term, spelled
