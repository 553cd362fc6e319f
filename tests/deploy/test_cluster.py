"""Three replicas behind nginx (deploy/nginx-guide.conf), with static tokens, as deploy/README.md sets them up.

2026-07-28 rounds go to any replica; legacy sessions stay on the replica that created
them; the replicas check tokens, bind continuation state to its user and refuse
requests for host names and origins they were not told about.
"""

import re
import secrets
from collections import Counter

import httpx2
import pytest
from deploy_clients import Modern, Recorder, bounded, client, keyword_text, plans, run_legacy, run_modern
from deploy_cluster import cluster, get
from mcp import MCPError

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

ALICE = secrets.token_urlsafe(32)
BOB = secrets.token_urlsafe(32)
PUBLIC_NAME = "guide.example.com"
ENV = {
    "GUIDE_STATE_KEYS": secrets.token_hex(32),
    "GUIDE_AUTH_TOKENS": f"alice:{ALICE},bob:{BOB}",
    "GUIDE_ALLOWED_HOSTS": PUBLIC_NAME,
}
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    with cluster(tmp_path_factory.mktemp("cluster"), ENV) as (front, replicas):
        yield front, replicas


async def test_2026_rounds_go_to_any_replica_and_every_interaction_gets_its_own_text(deployment):
    front, replicas = deployment
    addresses = {replica.address for replica in replicas}
    routes = await bounded((run_modern(front.url, plan, ALICE) for plan in plans(200, seed=13)), limit=10)  # not a multiple of 3: no lockstep with round-robin

    assert len(routes) == 200
    for number, route in enumerate(routes):
        assert len(route) in (2, 3, 4) and set(route) <= addresses, f"interaction {number} was answered by {route}"
    assert Counter(replica for route in routes for replica in route).keys() == addresses
    crossed = sum(len(set(route)) > 1 for route in routes)
    assert crossed > len(routes) // 2, f"only {crossed} of 200 interactions had rounds on more than one replica"


async def test_legacy_sessions_stay_on_the_replica_that_created_them(deployment):
    front, replicas = deployment
    recorders = await bounded((run_legacy(front.url, plan, ALICE) for plan in plans(50, seed=10)), limit=10)

    creators = Counter()
    for number, recorder in enumerate(recorders):
        opening = recorder.exchanges[0]
        assert opening.session_sent is None and opening.session_received and opening.status == 200
        creators[opening.replica] += 1
        session = [exchange for exchange in recorder.exchanges if exchange.session_sent == opening.session_received]
        assert session, f"session {number} sent nothing after initialize"
        assert {(exchange.replica, exchange.status < 300) for exchange in session} == {(opening.replica, True)}, f"session {number}: {session}"
    assert len(creators) > 1, f"every session was opened on one replica: {creators}"


async def test_no_token_or_a_wrong_token_gets_401_with_a_challenge(deployment):
    front, _ = deployment
    async with httpx2.AsyncClient() as http:
        for headers in ({}, {"Authorization": f"Basic {ALICE}"}, {"Authorization": "Bearer " + secrets.token_urlsafe(32)}):
            response = await http.post(front.url, content=INITIALIZE, headers={**MCP_HEADERS, **headers})
            assert response.status_code == 401, headers
            assert response.headers["www-authenticate"].startswith("Bearer"), response.headers
            assert response.headers["x-guide-replica"], "the replica itself refused it (nginx passes the header through)"
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
        # issue 36: where an OAuth client (mcp-remote) goes next, nginx sends it to a replica, which says the token was refused
        registered = await http.post(front.url.removesuffix("/mcp") + "/register", json={}, headers=headers)
        assert registered.status_code == 401 and "this bearer token was refused" in registered.text, registered.text


async def test_one_users_continuation_is_refused_with_another_users_token(deployment):
    front, _ = deployment
    (plan,) = plans(1, seed=3)
    async with Modern(front.url, plan, ALICE) as alice:
        await alice.round()
        assert alice.pending
        async with client(front.url, "2026-07-28", Recorder(), BOB) as bob:
            with pytest.raises(MCPError) as raised:
                await bob.session.read_resource("guide://_review", allow_input_required=True, request_state=alice.state)
        assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid or expired requestState")
        text = await alice.finish()  # the same state still works for its own user
    plan.check(text, await keyword_text(front.url, plan, ALICE))


async def test_host_and_origin_behind_the_proxy(deployment):
    front, replicas = deployment
    auth = {"Authorization": f"Bearer {ALICE}"}
    cases = [
        ({"Host": PUBLIC_NAME}, 200),
        ({"Host": f"{PUBLIC_NAME}:443", "Origin": f"http://{PUBLIC_NAME}:443"}, 200),
        ({"Host": "evil.example"}, 421),
        ({"Host": PUBLIC_NAME, "Origin": "http://evil.example"}, 403),
    ]
    async with httpx2.AsyncClient() as http:
        for headers, status in cases:
            response = await http.post(front.url, content=INITIALIZE, headers={**MCP_HEADERS, **auth, **headers})
            assert response.status_code == status, (headers, response.text)
        direct = await http.post(replicas[0].url, content=INITIALIZE, headers={**MCP_HEADERS, **auth, "Host": "evil.example"})
        assert direct.status_code == 421


def test_health_needs_no_token(deployment):
    _, replicas = deployment
    for replica in replicas:
        assert get(replica.port, "/healthz") == (200, "ok\n")


async def test_the_log_names_the_real_client_in_one_format(deployment):
    """Behind nginx the replicas believe its X-Forwarded-For (--forwarded-allow-ips 127.0.0.1), and log every line alike."""
    front, replicas = deployment
    async with httpx2.AsyncClient() as http:
        response = await http.post(front.url, content=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {ALICE}", "X-Forwarded-For": "203.0.113.7"})
        assert response.status_code == 200
    logs = "".join(replica.log() for replica in replicas)
    access = [line for line in logs.splitlines() if "uvicorn.access" in line]
    assert any("203.0.113.7" in line and "POST /mcp" in line for line in access), access  # nginx's client, not 127.0.0.1
    assert all(re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ [\w.]+: ", line) for line in logs.splitlines() if line.strip())
