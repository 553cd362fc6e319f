"""One principal cannot take every `subscriptions/listen` place; another still listens (issue 25, finding 8).

Before the share, one client could open all 256 streams, never read them, and
every other client was refused for as long as it kept them.
"""

from contextlib import AsyncExitStack

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from http_served import http_server
from mcp import MCPError
from mcp.client.subscriptions import listen

from guide.server.eras.listen import LISTEN_SHARE, TOO_MANY_OWNED

ALICE = "alice-token-0123456789abcdef0123456789"
BOB = "bob-token-0123456789abcdef0123456789abc"


async def test_one_principal_holds_at_most_its_share_and_another_still_listens(docroot, mode, tmp_path):
    if mode != "2026-07-28":
        pytest.skip("listen streams are 2026-07-28's")
    environ = {"GUIDE_AUTH_TOKENS": f"alice:{ALICE},bob:{BOB}"}
    with http_server(docroot.root, docroot.project, tmp_path / "server.log", environ=environ) as served:
        async with AsyncExitStack() as stack:
            alice = await stack.enter_async_context(Client(StreamableHttpTransport(served.url, auth=ALICE), mode=mode))
            for _ in range(LISTEN_SHARE):
                await stack.enter_async_context(listen(alice.session, resources_list_changed=True))
            with pytest.raises(MCPError) as refused:
                async with listen(alice.session, resources_list_changed=True):
                    pass
            assert refused.value.error.message == TOO_MANY_OWNED
            bob = await stack.enter_async_context(Client(StreamableHttpTransport(served.url, auth=BOB), mode=mode))
            async with listen(bob.session, resources_list_changed=True):
                pass  # acknowledged: Bob has a place
        assert "Traceback" not in served.log_text()
