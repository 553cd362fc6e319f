"""The environment variables of a team deployment: tokens, JWT settings, state TTL, Host/Origin guard, warnings."""

import asyncio
import secrets

import pytest
from fastmcp import Client
from fastmcp.server.auth.providers.jwt import JWTVerifier, RSAKeyPair, StaticTokenVerifier
from mcp import MCPError
from mcp_types import ElicitResult, InputRequiredResult

from guide.cli import main
from guide.errors import GuideError
from guide.examples import DOCROOT
from guide.server import auth, http
from guide.server.app import create_server
from guide.server.eras.modern import sealing
from guide.server.settings import read_settings

ALICE, BOB = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
PEM = RSAKeyPair.generate().public_key
JWT = {"GUIDE_AUTH_ISSUER": "https://id.example.com", "GUIDE_AUTH_AUDIENCE": "guide"}


def verifier(environ: dict[str, str]):
    """The token verifier `guide serve` makes when started with `environ` (its settings read, then `guide.server.auth`)."""
    return auth.verifier(read_settings({}, environ))


def test_no_auth_variables_leave_access_open():
    assert verifier({}) is None
    assert verifier({"GUIDE_AUTH_TOKENS": "  "}) is None


async def test_static_tokens_name_their_principal():
    found = verifier({"GUIDE_AUTH_TOKENS": f"alice:{ALICE}, bob : {BOB}"})
    assert isinstance(found, StaticTokenVerifier)
    alice, bob = await found.verify_token(ALICE), await found.verify_token(BOB)
    assert (alice.client_id, alice.subject, bob.client_id) == ("alice", "alice", "bob")
    assert await found.verify_token(ALICE + "x") is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (f"alice{ALICE}", "GUIDE_AUTH_TOKENS: entry 1 is not name:token"),
        (f"alice:{ALICE},:{BOB}", "GUIDE_AUTH_TOKENS: entry 2 is not name:token"),
        ("alice:k9z-tiny", "GUIDE_AUTH_TOKENS: the token of 'alice' is shorter than 32 characters"),
        (f"alice:{ALICE},alice:{BOB}", "GUIDE_AUTH_TOKENS: the name 'alice' appears twice"),
        (f"alice:{ALICE},bob:{ALICE}", "GUIDE_AUTH_TOKENS: 'bob' has the same token as 'alice'"),
    ],
    ids=["no-colon", "empty-name", "short-token", "name-twice", "token-twice"],  # the tokens are random: ids from them would differ between runs
)
def test_bad_static_tokens_are_refused_in_one_line_without_the_secret(value, message):
    with pytest.raises(GuideError) as raised:
        verifier({"GUIDE_AUTH_TOKENS": value})
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)
    assert not [token for token in (ALICE, BOB, "k9z-tiny") if token in str(raised.value)]


def test_jwt_settings_give_fastmcps_verifier_with_issuer_and_audience(tmp_path):
    found = verifier({"GUIDE_AUTH_PUBLIC_KEY": PEM, **JWT})
    assert isinstance(found, JWTVerifier)
    assert (found.issuer, found.audience, found.algorithm) == ("https://id.example.com", "guide", "RS256")
    key_file = tmp_path / "public.pem"
    key_file.write_text(PEM, encoding="ascii")
    assert verifier({"GUIDE_AUTH_PUBLIC_KEY": str(key_file), **JWT}).public_key == PEM
    assert verifier({"GUIDE_AUTH_JWKS_URI": "https://id.example.com/jwks.json", **JWT}).jwks_uri == "https://id.example.com/jwks.json"


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"GUIDE_AUTH_PUBLIC_KEY": PEM, "GUIDE_AUTH_ISSUER": "https://id.example.com"}, "JWT access needs GUIDE_AUTH_AUDIENCE"),
        ({"GUIDE_AUTH_JWKS_URI": "https://id.example.com/jwks.json"}, "JWT access needs GUIDE_AUTH_ISSUER and GUIDE_AUTH_AUDIENCE"),
        ({"GUIDE_AUTH_PUBLIC_KEY": "/nowhere/key.pem", **JWT}, "GUIDE_AUTH_PUBLIC_KEY: /nowhere/key.pem is neither PEM text nor a readable PEM file"),
        ({"GUIDE_AUTH_PUBLIC_KEY": PEM, "GUIDE_AUTH_JWKS_URI": "https://id.example.com/jwks.json", **JWT}, "GUIDE_AUTH_JWKS_URI and GUIDE_AUTH_PUBLIC_KEY are both set"),
        ({"GUIDE_AUTH_PUBLIC_KEY": PEM, "GUIDE_AUTH_ALGORITHM": "none", **JWT}, "GUIDE_AUTH_ALGORITHM: 'none' is not an algorithm Guide accepts; use one of HS256"),
        ({"GUIDE_AUTH_TOKENS": f"alice:{ALICE}", "GUIDE_AUTH_PUBLIC_KEY": PEM, **JWT}, "GUIDE_AUTH_TOKENS and GUIDE_AUTH_PUBLIC_KEY are both set; choose static tokens or JWTs"),
    ],
)
def test_incomplete_or_conflicting_jwt_settings_are_refused(environ, message):
    with pytest.raises(GuideError) as raised:
        verifier(environ)
    assert str(raised.value).startswith(message)


def ttl(environ: dict) -> float:
    return read_settings({}, environ).state_ttl


def test_state_ttl_defaults_to_ten_minutes_and_takes_seconds():
    assert ttl({}) == ttl({"GUIDE_STATE_TTL": ""}) == 600
    assert ttl({"GUIDE_STATE_TTL": " 90 "}) == 90 and ttl({"GUIDE_STATE_TTL": "0.5"}) == 0.5
    assert sealing((), 45).ttl == 45
    assert sealing((secrets.token_hex(32),), 600).ttl == 600


@pytest.mark.parametrize("value", ["0", "-5", "ten", "inf", "nan"])
def test_a_bad_state_ttl_is_refused(value):
    with pytest.raises(GuideError, match=r"^GUIDE_STATE_TTL: '.*' is not a number greater than 0$"):
        ttl({"GUIDE_STATE_TTL": value})


def test_host_origin_guard_is_strict_by_default_and_takes_proxy_names():
    options = http.run_options(read_settings({}, {}))
    assert options["host_origin_protection"] is True
    assert options["allowed_hosts"] is None and options["allowed_origins"] is None
    assert options["uvicorn_config"]["timeout_graceful_shutdown"] == http.SHUTDOWN_GRACE
    assert options["uvicorn_config"]["proxy_headers"] is False  # X-Forwarded-For is believed only from proxies named
    named = http.run_options(read_settings({}, {"GUIDE_ALLOWED_HOSTS": "guide.example.com, 10.0.0.*", "GUIDE_ALLOWED_ORIGINS": "https://guide.example.com"}))
    assert named["allowed_hosts"] == ["guide.example.com", "10.0.0.*"]
    assert named["allowed_origins"] == ["https://guide.example.com"]


def served_on(host: str, environ: dict | None = None):
    return read_settings({"host": host}, environ or {})


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_loopback_needs_no_warning(host):
    assert http.startup_warnings(served_on(host), authenticated=False) == []


def test_a_reachable_address_without_auth_is_warned_about():
    found = http.startup_warnings(served_on("0.0.0.0"), authenticated=False)
    assert found[0].startswith("warning: serving 0.0.0.0 without authentication: anyone who can reach this port reads the docroot")
    assert found[1].startswith("note: only requests whose Host is localhost, 127.0.0.1, ::1 are answered (others get 421)")
    assert "or 10.1.2.3 are answered" in http.startup_warnings(served_on("10.1.2.3"), authenticated=True)[0]
    assert http.startup_warnings(served_on("0.0.0.0", {"GUIDE_ALLOWED_HOSTS": "guide.example.com"}), authenticated=True) == []


def test_a_reachable_address_with_projects_under_is_noted(tmp_path):
    settings = read_settings({"host": "0.0.0.0", "projects_under": tmp_path}, {"GUIDE_ALLOWED_HOSTS": "guide.example.com"})
    assert http.startup_warnings(settings, authenticated=True) == [
        "note: every caller that reaches 0.0.0.0 may name any folder inside --projects-under as the project of a read "
        "(its workflow phase, and the names of the folders there); see docs/security.md"]
    assert http.startup_warnings(read_settings({"projects_under": tmp_path}, {}), authenticated=False) == []  # loopback: the user's own


def test_projects_under_is_off_by_default_and_must_be_a_folder(tmp_path):
    assert read_settings({}, {}).projects_under is None
    assert read_settings({}, {"GUIDE_PROJECTS_UNDER": str(tmp_path)}).projects_under == tmp_path
    with pytest.raises(GuideError, match="^--projects-under: '.*' is not a folder$"):
        read_settings({"projects_under": tmp_path / "missing"}, {})


def test_serve_prints_the_warning_before_serving(monkeypatch, capsys):
    ran = {}
    monkeypatch.setattr("fastmcp.FastMCP.run", lambda server, **options: ran.update(options))
    monkeypatch.delenv("GUIDE_AUTH_TOKENS", raising=False)
    assert main(["serve", "--transport", "http", "--host", "0.0.0.0", "--port", "8123"]) == 0
    assert "guide serve: warning: serving 0.0.0.0 without authentication" in capsys.readouterr().err
    assert (ran["host"], ran["port"], ran["host_origin_protection"]) == ("0.0.0.0", 8123, True)


async def test_a_continuation_older_than_the_ttl_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("GUIDE_STATE_TTL", "0.5")
    server = create_server(DOCROOT, tmp_path, watch=False)
    async with Client(server, mode="2026-07-28", elicitation_handler=_unused) as client:
        first = await client.session.read_resource("guide://_review", allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        await asyncio.sleep(0.6)  # past the state's expiry, however fast or slow the machine is
        answers = {"target": ElicitResult(action="accept", content={"mode": "uncommitted"}), "depth": ElicitResult(action="accept", content={"depth": "quick"})}
        with pytest.raises(MCPError) as raised:
            await client.session.read_resource("guide://_review", allow_input_required=True, input_responses=answers, request_state=first.request_state)
    assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid or expired requestState")


async def _unused(message, response_type, params, context):
    raise AssertionError("rounds are driven by hand")
