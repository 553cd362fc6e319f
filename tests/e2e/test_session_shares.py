"""One client cannot take every legacy HTTP session place; another still connects (issue 25, finding 8).

The MCP SDK refuses sessions past its total (10,000) and keeps an idle one for
30 minutes: before the share, one client could open them all and lock every
other client out. Here the total is 16, so one client's share is 2.
"""

from contextlib import AsyncExitStack

import pytest
from e2e_support import read
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from http_served import http_server
from mcp import MCPError

ALICE = "alice-token-0123456789abcdef0123456789"
BOB = "bob-token-0123456789abcdef0123456789abc"
SHARE = 2


def _client(url: str, token: str) -> Client:
    return Client(StreamableHttpTransport(url, auth=token), mode="legacy")


async def test_one_principal_holds_at_most_its_share_of_sessions_and_another_still_connects(docroot, mode, tmp_path):
    if mode != "legacy":
        pytest.skip("only the handshake era opens HTTP sessions")
    environ = {"GUIDE_AUTH_TOKENS": f"alice:{ALICE},bob:{BOB}", "GUIDE_MAX_SESSIONS": "16"}
    with http_server(docroot.root, docroot.project, tmp_path / "server.log", environ=environ) as served:
        async with AsyncExitStack() as stack:
            for _ in range(SHARE):
                alice = await stack.enter_async_context(_client(served.url, ALICE))
                assert "STYLE GUIDE" in await read(alice, "guide://docs/style")
            with pytest.raises(MCPError) as refused:
                async with _client(served.url, ALICE):
                    pass
            assert refused.value.error.message.startswith(f"Guide serves at most {SHARE} sessions to one client at once; end one")
            bob = await stack.enter_async_context(_client(served.url, BOB))
            assert "STYLE GUIDE" in await read(bob, "guide://docs/style")
            await stack.aclose()
            async with _client(served.url, ALICE) as again:  # Alice's ended sessions (DELETE) free her places
                assert "STYLE GUIDE" in await read(again, "guide://docs/style")
        log = served.log_text()
    assert "refused 1 new session(s): serves at most 2 sessions to one client at once" in log
    assert "Traceback" not in log
