"""Guide uses three private FastMCP hooks where no public one exists (issue 18); each has a test here that says which
hook changed, and in which FastMCP release, so an upgrade breaks loudly in CI rather than silently in a client.

- `FastMCP._mcp_server.add_request_handler`: serves `subscriptions/listen` (the 2026-07-28 era's list-changed stream);
- `ServerSession._connection`: the legacy connection that list-changed notifications are sent on;
- `fastmcp.skills._source._SkillSource`: the protocol the Skills extension reads entries through.
"""

import inspect

import fastmcp
import pytest
from fastmcp import Client, FastMCP
from fastmcp.server.middleware import Middleware

from guide.server.app import create_server
from guide.server.provider import DocrootProvider


def broken(hook: str, used_by: str, how: str) -> str:
    return f"FastMCP {fastmcp.__version__}: the private hook {hook} {how}; {used_by} relies on it (see tests/server/test_fastmcp_hooks.py)"


def test_the_low_level_request_handler_hook_is_there():
    low_level = getattr(FastMCP("probe"), "_mcp_server", None)
    register = getattr(low_level, "add_request_handler", None)
    assert callable(register), broken("FastMCP._mcp_server.add_request_handler", "subscriptions/listen (guide.server.eras)", "is gone")
    parameters = list(inspect.signature(register).parameters)
    assert parameters[:3] == ["method", "params_type", "handler"], broken(
        "FastMCP._mcp_server.add_request_handler", "subscriptions/listen (guide.server.eras)", f"now takes {parameters}"
    )


async def test_a_legacy_session_still_names_its_connection():
    from mcp.server.connection import Connection

    seen = []

    class Capture(Middleware):
        async def on_initialize(self, context, call_next):
            result = await call_next(context)
            seen.append(context.fastmcp_context.session)
            return result

    server = FastMCP("probe")
    server.add_middleware(Capture())
    async with Client(server, mode="legacy"):
        pass
    connection = getattr(seen[0], "_connection", None) if seen else None
    assert isinstance(connection, Connection), broken("ServerSession._connection", "legacy list-changed notifications", "is gone")
    for name in ("send_resource_list_changed", "send_prompt_list_changed", "exit_stack"):
        assert hasattr(connection, name), broken(f"Connection.{name}", "legacy list-changed notifications", "is gone")


def test_the_skills_source_protocol_is_the_one_guide_implements(tmp_path):
    try:
        from fastmcp.skills._source import _SkillSource
    except ImportError:
        pytest.fail(broken("fastmcp.skills._source._SkillSource", "the Skills extension (guide.server.skills)", "cannot be imported"))
    wanted = {"_list_skill_entries", "_get_skill_entry", "_skill_uris", "_owns_skill_resource"}
    declared = {name for name in vars(_SkillSource) if name.startswith("_") and not name.startswith("__") and callable(getattr(_SkillSource, name))}
    assert declared == wanted, broken("_SkillSource", "the Skills extension (guide.server.skills)", f"now asks for {sorted(declared)}")
    server = create_server(tmp_path, watch=False)
    provider = next(provider for provider in server.providers if isinstance(provider, DocrootProvider))
    assert isinstance(provider, _SkillSource), broken("_SkillSource", "the Skills extension (guide.server.skills)", "no longer matches Guide's provider")
