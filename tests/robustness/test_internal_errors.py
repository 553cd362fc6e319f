"""Issue 10, item 9: an unexpected failure tells the client only that Guide failed, never the exception's type or text."""

import pytest
from mcp import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from guide.docroot.built import Built
from guide.server.errors import UNEXPECTED

SECRET = "/home/someone/.ssh/id_rsa"


class Leaky(RuntimeError):
    """An exception whose text names a path outside the docroot."""


@pytest.fixture
def broken(monkeypatch):
    """Make every entrypoint lookup fail with an unexpected exception (after the client connected)."""

    def install():
        def fail(*args, **kwargs):
            raise Leaky(f"cannot open {SECRET}")

        for name in ("command", "every", "skill", "names", "descriptions", "document", "member"):
            monkeypatch.setattr(Built, name, fail)

    return install


async def _error_text(call) -> str:
    try:
        result = await call()
    except MCPError as error:
        return error.error.message
    if getattr(result, "is_error", False):
        return result.content[0].text
    return repr(result)


@pytest.mark.parametrize(
    "route",
    ["resource", "document", "tool", "route prompt", "route completion", "field completion", "template completion"],
)
async def test_an_unexpected_failure_never_reaches_the_client_as_text(root, connect, broken, route):
    async with connect(root) as client:
        await client.list_prompts()
        broken()
        calls = {
            "resource": lambda: client.read_resource("guide://_ask"),
            "document": lambda: client.read_resource("guide://lang/python"),
            "tool": lambda: client.call_tool("read_resource", {"uri": "guide://_help"}, raise_on_error=False),
            "route prompt": lambda: client.get_prompt("guide", {"command": "_ask"}),
            "route completion": lambda: client.complete(PromptReference(name="guide"), {"name": "command", "value": "_"}),
            "field completion": lambda: client.complete(PromptReference(name="ask"), {"name": "mode", "value": ""}),
            "template completion": lambda: client.complete(ResourceTemplateReference(uri="guide://$tool-kit{?level}"), {"name": "level", "value": ""}),
        }
        text = await _error_text(calls[route])
    assert SECRET not in text and "Leaky" not in text
    if "completion" not in route:
        assert text == UNEXPECTED
