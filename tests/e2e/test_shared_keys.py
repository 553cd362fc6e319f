"""C8 across processes: continuation state sealed by one server unseals on another with the same keys.

Two real `guide serve --transport http` processes share GUIDE_STATE_KEYS; a third has
different keys. A 2026-07-28 interaction is driven by hand (one round per request) and
hops between the processes, so nothing but the sealed `requestState` carries it.
"""

import contextlib
import os
import secrets
from pathlib import Path

import pytest
from fastmcp import Client
from mcp import MCPError
from mcp_types import ElicitResult, InputRequiredResult
from support.servers import guide_http

from guide.examples import DOCROOT

URI = "guide://_review"
CEILING = 2 * 1024**3  # bytes of address space each server may map
SHARED_KEYS = f"{secrets.token_hex(32)},{secrets.token_hex(32)}"  # first seals, both unseal
OTHER_KEYS = secrets.token_hex(32)

BRANCH_TEXT = (
    "# Review: branch\n\n"
    "Compare `feature/x` with the main branch and read every changed file.\n\n"
    "Review depth: **thorough**.\n\n"
    "Report findings as a list: file, line, what is wrong, and a suggested fix.\n"
)
UNCOMMITTED_TEXT = (
    "# Review: uncommitted\n\n"
    "Run `git diff` and read every uncommitted change.\n\n"
    "No depth was chosen, so this is a quick pass.\n"
    "Review depth: **quick**.\n\n"
    "Report findings as a list: file, line, what is wrong, and a suggested fix.\n"
)


@pytest.fixture
def mode() -> str:
    """2026-07-28 only (continuation state exists only there); overrides any folder-wide per-era `mode`."""
    return "2026-07-28"


@contextlib.contextmanager
def guide_server(keys: str, workdir: Path):
    """A `guide serve --transport http` process sealing with `keys`; yields its /mcp URL."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GUIDE_STATE_KEYS=keys)
    with guide_http(DOCROOT, workdir, workdir / "server.log", address_space=CEILING, env=env) as (url, _, _process):
        yield url


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Servers A and B run with the same GUIDE_STATE_KEYS; C runs with different keys."""
    root = tmp_path_factory.mktemp("shared-keys")
    with (
        guide_server(SHARED_KEYS, root / "a") as a,
        guide_server(SHARED_KEYS, root / "b") as b,
        guide_server(OTHER_KEYS, root / "c") as c,
    ):
        yield {"a": a, "b": b, "c": c}


async def _no_handler(message, response_type, params, context):
    raise AssertionError(f"the test drives every round by hand; unexpected elicitation: {message}")


def client(url: str) -> Client:
    """A 2026-07-28 client that declares form elicitation but answers nothing by itself."""
    return Client(url, mode="2026-07-28", elicitation_handler=_no_handler)


async def read(url: str, *, state: str | None = None, **answers: dict) -> InputRequiredResult | str:
    """One `resources/read` round on the server at `url`: a new question set, or the rendered text."""
    responses = {form: ElicitResult(action="accept", content=content) for form, content in answers.items()} or None
    async with client(url) as session_client:
        result = await session_client.session.read_resource(URI, allow_input_required=True, input_responses=responses, request_state=state)
    if isinstance(result, InputRequiredResult):
        return result
    assert len(result.contents) == 1
    return result.contents[0].text


def asked(result) -> dict[str, dict]:
    assert isinstance(result, InputRequiredResult), result
    assert result.request_state, "an input_required result without state cannot continue elsewhere"
    return {form: request.params.requested_schema for form, request in (result.input_requests or {}).items()}


async def test_c8_state_begun_on_one_process_completes_on_another(servers):
    first = await read(servers["a"])
    assert set(asked(first)) == {"target", "depth"}

    second = await read(servers["b"], state=first.request_state, target={"mode": "branch"}, depth={"depth": "thorough"})
    assert set(asked(second)) == {"reference"}
    assert second.request_state != first.request_state

    third = await read(servers["a"], state=second.request_state, reference={"reference": "feature/x"})
    assert third == BRANCH_TEXT


async def test_c8_state_finishes_on_the_other_process_in_one_hop(servers):
    first = await read(servers["b"])
    assert set(asked(first)) == {"target", "depth"}
    # Depth cancelled: the included form takes its default and the partial says so.
    responses = {"target": ElicitResult(action="accept", content={"mode": "uncommitted"}), "depth": ElicitResult(action="cancel")}
    async with client(servers["a"]) as other:
        result = await other.session.read_resource(URI, allow_input_required=True, input_responses=responses, request_state=first.request_state)
    assert not isinstance(result, InputRequiredResult), result
    assert result.contents[0].text == UNCOMMITTED_TEXT


async def test_c8_state_is_rejected_by_a_process_with_different_keys(servers):
    first = await read(servers["a"])
    asked(first)
    with pytest.raises(MCPError) as raised:
        await read(servers["c"], state=first.request_state, target={"mode": "branch"}, depth={"depth": "thorough"})
    assert raised.value.error.code == -32602
    assert raised.value.error.message == "Invalid or expired requestState"


async def test_c8_state_sealed_by_other_keys_is_rejected_by_the_sharing_pair(servers):
    first = await read(servers["c"])
    asked(first)
    for name in ("a", "b"):
        with pytest.raises(MCPError) as raised:
            await read(servers[name], state=first.request_state, target={"mode": "uncommitted"}, depth={"depth": "quick"})
        assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid or expired requestState")
