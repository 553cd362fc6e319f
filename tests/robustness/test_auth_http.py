"""Issue 19 finding 4 and issue 20 item 5 over HTTP: who a JWT's principal is, and the 401 a client reads.

Real `guide serve --transport http` processes on the bundled example: one checks JWTs
(RS256, a generated key pair) whose principal is their `email` claim, one checks static
tokens. Tokens without a principal must never share an interaction; a missing or
refused token gets Guide's own words, never FastMCP's "re-register" advice.
"""

from collections.abc import Iterator

import httpx2
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp import MCPError
from mcp_types import ElicitResult, InputRequiredResult
from support.servers import ALICE_TOKEN, BOB_TOKEN, example_http

from robustness.test_jwt_settings import AUDIENCE, ISSUER, KEYS, private_key, signed

URI = "guide://_review"
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
MISSING = "this server needs a bearer token: send the header Authorization: Bearer <token>, with the token your operator issued you (GUIDE_AUTH_TOKENS)"
REFUSED = "this bearer token was refused: it is not one of the tokens your operator issued (GUIDE_AUTH_TOKENS); check it was copied whole, or ask them for yours"


@pytest.fixture(scope="module")
def by_email(tmp_path_factory) -> Iterator[str]:
    """A server checking RS256 JWTs whose principal is the `email` claim."""
    env = {"GUIDE_AUTH_PUBLIC_KEY": KEYS.public_key, "GUIDE_AUTH_ISSUER": ISSUER, "GUIDE_AUTH_AUDIENCE": AUDIENCE, "GUIDE_AUTH_PRINCIPAL_CLAIM": "email"}
    with example_http(tmp_path_factory.mktemp("jwt-email"), env) as url:
        yield url


@pytest.fixture(scope="module")
def static(tmp_path_factory) -> Iterator[str]:
    """A server checking the static tokens of alice and bob."""
    with example_http(tmp_path_factory.mktemp("static"), {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN},bob:{BOB_TOKEN}"}) as url:
        yield url


async def _no_handler(message, response_type, params, context):
    raise AssertionError(f"every round is driven by hand; unexpected elicitation: {message}")


async def _round(url: str, token: str, state: str | None = None, **answers: dict):
    transport = StreamableHttpTransport(url, auth=token)
    responses = {form: ElicitResult(action="accept", content=content) for form, content in answers.items()} or None
    async with Client(transport, mode="2026-07-28", elicitation_handler=_no_handler) as client:
        return await client.session.read_resource(URI, allow_input_required=True, input_responses=responses, request_state=state)


async def _post(url: str, **headers: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as http:
        return await http.post(url, content=INITIALIZE, headers={**MCP_HEADERS, **headers})


async def test_finding_4_tokens_without_sub_never_continue_each_others_interaction(by_email):
    alice = signed(private_key(), email="alice@example.com")  # neither token has a sub
    bob = signed(private_key(), email="bob@example.com")
    first = await _round(by_email, alice)
    assert isinstance(first, InputRequiredResult) and first.request_state

    with pytest.raises(MCPError) as raised:
        await _round(by_email, bob, first.request_state, target={"mode": "uncommitted"}, depth={"depth": "quick"})
    assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid or expired requestState")

    done = await _round(by_email, alice, first.request_state, target={"mode": "uncommitted"}, depth={"depth": "quick"})
    assert done.contents[0].text.startswith("# Review: uncommitted")


async def test_finding_4_a_token_without_the_principal_claim_is_refused_over_http(by_email):
    for token in (signed(private_key()), signed(private_key(), sub="alice"), signed(private_key(), email="")):
        response = await _post(by_email, Authorization=f"Bearer {token}")
        assert response.status_code == 401
        description = response.json()["error"]["message"]
        assert description.startswith("this bearer token was refused: Guide accepts a JWT signed with its key, for its issuer and audience")
        assert "an exp in the future and a non-empty 'email' claim; get a new token from your identity provider" in description
        assert f'error_description="{description}"' in response.headers["www-authenticate"]
    assert (await _post(by_email, Authorization=f"Bearer {signed(private_key(), email='carol@example.com')}")).status_code == 200


async def test_issue_20_a_refused_static_token_gets_guides_message(static):
    refused = ("this bearer token was refused: it is not one of the tokens your operator issued (GUIDE_AUTH_TOKENS); "
               "check it was copied whole, or ask them for yours")
    for token in (ALICE_TOKEN[:-1], ALICE_TOKEN + "x", "not-a-token"):
        response = await _post(static, Authorization=f"Bearer {token}")
        assert response.status_code == 401
        # issue 36: the body is a JSON-RPC error, which the MCP SDKs report as it is (RFC 6750's error code is in the challenge)
        assert response.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": refused, "data": {"error": "invalid_token"}}}
        challenge = response.headers["www-authenticate"]
        assert challenge == f'Bearer error="invalid_token", error_description="{refused}"'
        assert "register" not in response.text + challenge and token not in response.text + challenge
    assert (await _post(static, Authorization=f"Bearer {BOB_TOKEN}")).status_code == 200


async def test_issue_20_a_missing_static_token_gets_guides_message(static):
    for headers in ({}, {"Authorization": f"Basic {ALICE_TOKEN}"}):
        response = await _post(static, **headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"  # RFC 6750 3.1: no error code without credentials
        assert response.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": MISSING}}
    async with httpx2.AsyncClient() as http:
        assert (await http.get(static.removesuffix("/mcp") + "/healthz")).status_code == 200  # the probe needs no token


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_issue_36_an_sdk_client_with_a_wrong_token_reports_guides_words(static, mode):
    for headers, said in (({"Authorization": "Bearer not-the-token"}, REFUSED), ({}, MISSING)):
        with pytest.raises(MCPError) as raised:
            async with Client(StreamableHttpTransport(static, headers=headers), mode=mode) as client:
                await client.read_resource("guide://_help")
        assert raised.value.error.message == said


async def test_issue_36_register_says_no_oauth_client_is_registered_and_whether_the_token_was_refused(static):
    """What an OAuth client (mcp-remote) reports when its token is refused: the answer of POST /register, after its discovery."""
    register = static.removesuffix("/mcp") + "/register"
    async with httpx2.AsyncClient() as http:
        refused = await http.post(register, json={"redirect_uris": ["http://localhost:1/cb"]}, headers={"Authorization": "Bearer not-the-token"})
        missing = await http.post(register, json={"redirect_uris": ["http://localhost:1/cb"]})
        accepted = await http.post(register, json={}, headers={"Authorization": f"Bearer {ALICE_TOKEN}"})
    no_oauth = "Guide registers no OAuth clients: it takes the bearer token your operator issued, in the Authorization header"
    assert (refused.status_code, refused.text) == (401, f"{no_oauth}; {REFUSED}")
    assert refused.headers["www-authenticate"] == f'Bearer error="invalid_token", error_description="{REFUSED}"'
    assert (missing.status_code, missing.text, missing.headers["www-authenticate"]) == (401, f"{no_oauth}; {MISSING}", "Bearer")
    assert (accepted.status_code, accepted.text) == (400, f"{no_oauth}; this token is accepted: send it to /mcp")
