"""Shared pieces of the tests of live listings: a notification recorder and a connection that listens in either era."""

from contextlib import AsyncExitStack

from fastmcp.client.messages import MessageHandler
from mcp.client.subscriptions import listen


class Recorder(MessageHandler):
    """Counts the list-changed notifications a client receives."""

    def __init__(self) -> None:
        self.resources = 0
        self.prompts = 0

    async def on_resource_list_changed(self, message) -> None:
        self.resources += 1

    async def on_prompt_list_changed(self, message) -> None:
        self.prompts += 1


async def connected(stack: AsyncExitStack, connect, server, mode: str, recorder: Recorder):
    client = await stack.enter_async_context(connect(server, message_handler=recorder))
    if mode == "2026-07-28":
        await stack.enter_async_context(listen(client.session, resources_list_changed=True, prompts_list_changed=True))
    return client
