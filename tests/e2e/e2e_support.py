"""Shared pieces of the end-to-end tests: the standard docroot, a recording elicitor and small helpers."""

import asyncio
import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError

MISSING_CAPABILITY = -32021
INVALID_PARAMS = -32602
FORM_CAPABILITY = {"requiredCapabilities": {"elicitation": {"form": {}}}}
PHASES = ["discussion", "planning", "implementation", "check", "review"]

@dataclass
class Asked:
    """One elicitation the client received: the form's first field, its message and schema."""

    key: str
    message: str
    schema: dict[str, Any]


class Elicitor:
    """A scripted elicitation handler that records every request.

    Answers are planned per form, keyed by the form's first field name: a dict
    (accept), "decline", "cancel", or a list of those used in turn (the last repeats).
    """

    def __init__(self) -> None:
        self.plan: dict[str, Any] = {}
        self.calls: list[Asked] = []

    def answer(self, **by_field: Any) -> "Elicitor":
        self.plan.update(by_field)
        return self

    async def handle(self, message, response_type, params, context):
        schema = params.requested_schema
        key = next(iter(schema["properties"]))
        self.calls.append(Asked(key, message, copy.deepcopy(schema)))
        if key not in self.plan:
            raise AssertionError(f"unexpected elicitation {message!r}")
        planned = self.plan[key]
        if isinstance(planned, list):
            planned = planned.pop(0) if len(planned) > 1 else planned[0]
        if planned in ("decline", "cancel"):
            return ElicitResult(action=planned)
        return dict(planned)

    @property
    def keys(self) -> list[str]:
        return [asked.key for asked in self.calls]

    def asked(self, key: str) -> list[Asked]:
        return [asked for asked in self.calls if asked.key == key]


async def read(client: Client, uri: str) -> str:
    """The text of a resource read."""
    contents = await client.read_resource(uri)
    assert len(contents) == 1
    return contents[0].text


async def read_error(client: Client, uri: str) -> MCPError:
    """The JSON-RPC error of a resource read that must fail."""
    with pytest.raises(MCPError) as info:
        await client.read_resource(uri)
    return info.value


async def prompt_text(client: Client, name: str, arguments: dict[str, Any] | None = None) -> str:
    """The text of a prompt's single message."""
    result = await client.get_prompt(name, arguments or {})
    assert len(result.messages) == 1
    return result.messages[0].content.text


async def prompt_error(client: Client, name: str, arguments: dict[str, Any] | None = None) -> MCPError:
    """The JSON-RPC error of a prompt get that must fail."""
    with pytest.raises(MCPError) as info:
        await client.get_prompt(name, arguments or {})
    return info.value


async def eventually(check: Callable[[], Awaitable[Any]], timeout: float = 5.0, interval: float = 0.05) -> Any:
    """Poll `check` until it returns something truthy; fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last: Any = None
    while True:
        try:
            last = await check()
        except Exception as error:  # noqa: BLE001 - the condition may fail while files change
            last = error
        else:
            if last:
                return last
        if loop.time() >= deadline:
            raise AssertionError(f"condition not met within {timeout} s; last result: {last!r}")
        await asyncio.sleep(interval)


def missing_keywords_error(error: MCPError, mode: str, keywords: str) -> None:
    """Assert the failure of a client without form elicitation that must supply `keywords` (comma-separated, sorted)."""
    names = keywords.split(", ")
    message, _, questions = error.error.message.partition("\n")  # a one-line summary, then the agent's questions (C7.12 c)
    assert message.startswith(f"this client cannot answer forms; supply the keywords: {names[0]} (")
    assert [message.index(f"{name} (") for name in names] == sorted(message.index(f"{name} (") for name in names)
    assert "Do not guess" in questions and all(f"- `{name}` (" in questions for name in names)
    data = error.error.data
    assert data["reason"] == "missing" and [field["keyword"] for field in data["fields"]] == names
    if mode == "2026-07-28":
        assert error.error.code == MISSING_CAPABILITY
        assert data["requiredCapabilities"] == FORM_CAPABILITY["requiredCapabilities"]
    else:
        assert error.error.code < 0

