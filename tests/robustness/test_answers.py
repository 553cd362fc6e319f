"""Issue 10, items 9 and 12, and the legacy wait: whatever a client answers, the read ends with one clear line.

The FastMCP client checks answers against the schema before sending them; a
hostile client does not. Tests bypass that check (`unchecked_answers`) or speak
raw JSON-RPC over stdio (`RawStdio`).
"""

import fastmcp.client.elicitation as client_elicitation
import pytest
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError

from guide.server.errors import UNEXPECTED
from robustness.hostile import write_docroot
from robustness.raw_stdio import RawStdio

LIMIT = 400


@pytest.fixture
def unchecked_answers(monkeypatch):
    """Let the FastMCP client send answers its schema check would stop."""
    monkeypatch.setattr(client_elicitation, "_validate_form_content", lambda content, schema: None)


def answering(content):
    async def handle(message, response_type, params, context):
        return ElicitResult(action="accept", content=content)

    return handle


@pytest.mark.parametrize(
    ("uri", "content"),
    [
        ("guide://_ask?mode=careful", {"detail": "X" * 10_000_000}),
        ("guide://_ask?mode=careful", {"detail": "fine", "email": "@" * 1_000_000}),
        ("guide://_ask?mode=quick", {"count": 10**400}),
        ("guide://_ask?mode=quick", {"count": 3, "ratio": 10**400}),
        ("guide://_ask?mode=quick", {"count": 3, "big": -(10**400)}),
        ("guide://_ask?mode=quick", {"count": 3, "tags": ["w" * 100_000] * 10}),
    ],
    ids=["pattern", "format", "integer", "number", "unbounded integer", "choices"],
)
async def test_a_huge_or_out_of_range_answer_fails_with_a_short_line(root, connect, unchecked_answers, uri, content):
    async with connect(root, answering(content)) as client:
        with pytest.raises(MCPError) as error:
            await client.read_resource(uri)
    message = error.value.error.message
    assert message != UNEXPECTED and "\n" not in message and len(message) < LIMIT
    assert "(asked 4 times)" in message


async def test_re_asks_quote_a_short_prefix_of_a_huge_answer(root, connect, unchecked_answers):
    asked = []

    async def handle(message, response_type, params, context):
        if "detail" not in params.requested_schema["properties"]:
            return ElicitResult(action="accept", content={"count": 3})
        asked.append(message)
        return ElicitResult(action="accept", content={"detail": "X" * 5_000_000})

    async with connect(root, handle) as client:
        with pytest.raises(MCPError):
            await client.read_resource("guide://_ask?mode=careful")
    assert len(asked) == 4 and all(len(message) < LIMIT for message in asked)


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory):
    """One raw stdio server for the module: starting one takes a second or two."""
    base = tmp_path_factory.mktemp("raw")
    (base / "project").mkdir()
    client = RawStdio(write_docroot(base / "docroot"), base / "project")
    client.initialize()
    yield client
    client.close()


@pytest.mark.parametrize(
    "result",
    [
        {"action": "accept", "content": {"count": {"nested": [1, {"deep": True}]}}},
        {"action": "accept", "content": [1, 2, 3]},
        {"action": "accept", "content": "text"},
        {"action": "maybe"},
        {"content": {"count": 3}},
    ],
    ids=["nested", "list", "text", "unknown action", "no action"],
)
def test_legacy_an_answer_that_is_not_a_flat_map_is_one_clear_line(raw_server, result):
    client = raw_server
    read = client.request("resources/read", {"uri": "guide://_ask?mode=quick"})
    asked = client.elicitation()
    client.send({"jsonrpc": "2.0", "id": asked["id"], "result": result})
    message = client.response(read)["error"]["message"]
    assert message.startswith("the answer to form numbers is not an elicitation result: its content must map field names to values; ")
    assert "\n" not in message


def test_legacy_a_dropped_answer_ends_the_read_after_the_answer_timeout(root, project):
    client = RawStdio(root, project, "--answer-timeout", "0.5")
    try:
        client.initialize()
        read = client.request("resources/read", {"uri": "guide://_ask?mode=quick"})
        client.elicitation()
        client.send_line(b'{"jsonrpc": "2.0", "id": ')  # unreadable: the SDK drops it without a word
        message = client.response(read)["error"]["message"]
        assert message.startswith("the client did not answer form numbers within --answer-timeout (0.5 seconds); ")
        again = client.request("resources/read", {"uri": "guide://lang/python"})
        assert client.response(again)["result"]["contents"][0]["text"] == "PYTHON\n"
    finally:
        client.close()
