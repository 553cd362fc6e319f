"""One `guide serve --transport http` replica on its own: graceful shutdown, JWT access, Host/Origin checks."""

import json
import secrets
import signal
import socket
import time

import httpx2
import pytest
from deploy_clients import Modern, Recorder, client, keyword_text, plans
from deploy_cluster import START_TIMEOUT, Replica, accepts
from fastmcp.server.auth.providers.jwt import RSAKeyPair
from mcp import MCPError

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

ISSUER = "https://id.example.com"
AUDIENCE = "guide"
URI = "guide://_review?mode=uncommitted&depth=thorough"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_sigterm_finishes_the_request_in_flight(tmp_path):
    replica = Replica("solo", tmp_path / "solo", {}).start()
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": URI, "_meta": META}}).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {replica.address}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: resources/read\r\nMcp-Name: {URI}\r\nContent-Length: {len(body)}\r\n"
        "Expect: 100-continue\r\nConnection: close\r\n\r\n"
    ).encode()
    try:
        with socket.create_connection(("127.0.0.1", replica.port), timeout=START_TIMEOUT) as sock:
            sock.sendall(head)
            # The server says "100 Continue" only once the request is inside the application, waiting for its body.
            assert _read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 Continue\r\n")
            replica.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + START_TIMEOUT
            while accepts(replica.port) and time.monotonic() < deadline:  # shutdown has begun: no new connections
                time.sleep(0.02)
            assert not accepts(replica.port)
            sock.sendall(body)
            response = _read_until(sock, b"\x00never")
        status, _, payload = response.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 200 "), response
        text = json.loads(payload.decode().split("data: ", 1)[-1])["result"]["contents"][0]["text"]
        assert text.startswith("# Review: uncommitted") and "**thorough**" in text
        assert replica.process.wait(timeout=START_TIMEOUT) in (0, -signal.SIGTERM)
        assert "Finished server process" in replica.log()
    finally:
        replica.kill()


@pytest.fixture(scope="module")
def jwt_replica(tmp_path_factory):
    keys = RSAKeyPair.generate()
    replica = Replica(
        "jwt",
        tmp_path_factory.mktemp("jwt"),
        {"GUIDE_AUTH_PUBLIC_KEY": keys.public_key, "GUIDE_AUTH_ISSUER": ISSUER, "GUIDE_AUTH_AUDIENCE": AUDIENCE},
    ).start()
    try:
        yield replica, keys
    finally:
        replica.stop()


async def test_jwt_access_accepts_only_tokens_for_this_service(jwt_replica):
    replica, keys = jwt_replica
    good = keys.create_token(subject="alice", issuer=ISSUER, audience=AUDIENCE)
    refused = {
        "another audience": keys.create_token(subject="alice", issuer=ISSUER, audience="wiki"),
        "another issuer": keys.create_token(subject="alice", issuer="https://evil.example", audience=AUDIENCE),
        "expired": keys.create_token(subject="alice", issuer=ISSUER, audience=AUDIENCE, expires_in_seconds=-60),
        "another key": RSAKeyPair.generate().create_token(subject="alice", issuer=ISSUER, audience=AUDIENCE),
    }
    async with httpx2.AsyncClient() as http:
        for why, token in refused.items():
            response = await http.post(replica.url, content=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})
            assert response.status_code == 401, why
            assert 'error="invalid_token"' in response.headers["www-authenticate"], why
        response = await http.post(replica.url, content=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {good}"})
        assert response.status_code == 200


async def test_jwt_continuation_is_bound_to_its_subject(jwt_replica):
    replica, keys = jwt_replica
    alice = keys.create_token(subject="alice", issuer=ISSUER, audience=AUDIENCE)
    bob = keys.create_token(subject="bob", issuer=ISSUER, audience=AUDIENCE)
    (plan,) = plans(1, seed=5)
    async with Modern(replica.url, plan, alice) as interaction:
        await interaction.round()
        async with client(replica.url, "2026-07-28", Recorder(), bob) as other:
            with pytest.raises(MCPError) as raised:
                await other.session.read_resource("guide://_review", allow_input_required=True, request_state=interaction.state)
        assert raised.value.error.message == "Invalid or expired requestState"
        text = await interaction.finish()
    plan.check(text, await keyword_text(replica.url, plan, alice))


@pytest.mark.parametrize(("setting", "guarded"), [({}, True), ({"FASTMCP_HTTP_HOST_ORIGIN_PROTECTION": "false"}, False)])
async def test_dns_rebinding_guard_is_on_unless_fastmcp_is_told_otherwise(tmp_path, setting, guarded):
    replica = Replica("hosts", tmp_path / "hosts", setting).start()
    try:
        async with httpx2.AsyncClient() as http:
            post = lambda **headers: http.post(replica.url, content=INITIALIZE, headers={**MCP_HEADERS, **headers})  # noqa: E731
            assert (await post()).status_code == 200
            assert (await post(Origin=f"http://{replica.address}")).status_code == 200
            assert (await post(Origin="http://localhost:3000")).status_code == 200  # a local page talking to a local server
            assert (await post(Host="evil.example")).status_code == (421 if guarded else 200)
            assert (await post(Host=f"evil.example:{replica.port}")).status_code == (421 if guarded else 200)
            assert (await post(Origin="http://evil.example")).status_code == (403 if guarded else 200)
    finally:
        replica.stop()


def test_a_secret_is_never_in_the_token_error(tmp_path):
    secret = secrets.token_urlsafe(8)
    replica = Replica("bad", tmp_path / "bad", {"GUIDE_AUTH_TOKENS": f"alice:{secret}"}).launch()
    assert replica.process.wait(timeout=START_TIMEOUT) == 2
    log = replica.log()
    assert "guide serve: GUIDE_AUTH_TOKENS: the token of 'alice' is shorter than 32 characters" in log
    assert secret not in log


def test_the_replica_benchmark_runs(tmp_path):
    from bench.suite import b11_replicas

    out = tmp_path / "b11.json"
    assert b11_replicas.main(["--clients", "2", "--seconds", "0.2", "--runs", "1", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert set(figures["rps"]) == {"1 replica", "1 replica + nginx", "3 replicas + nginx"}
    assert all(summary["median"] > 0 for summary in figures["rps"].values())


def test_without_a_named_proxy_a_client_cannot_choose_the_address_the_log_gives(tmp_path):
    replica = Replica("direct", tmp_path / "direct", {}, behind_proxy=False).start()
    try:
        response = httpx2.post(replica.url, content=INITIALIZE, headers={**MCP_HEADERS, "X-Forwarded-For": "198.51.100.9"})
        assert response.status_code == 200
    finally:
        replica.stop()
    access = [line for line in replica.log().splitlines() if "uvicorn.access" in line and "POST /mcp" in line]
    assert access and not any("198.51.100.9" in line for line in access)
    assert all("127.0.0.1:" in line for line in access)
