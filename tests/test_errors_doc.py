"""docs/errors.md shows the failure shape as the server builds it (its example is the bundled example's real failure), and the codes a client really gets."""

import asyncio
import json
import re
import shutil
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError
from mcp.client.subscriptions import listen
from support.clocks import person

import guide.server.service as service_module
from guide.docroot.folder import GONE, Docroot
from guide.examples import DOCROOT
from guide.forms.step import Fail, step
from guide.routes.lookup import AddressRead, resolve
from guide.server.app import create_server
from guide.server.eras import listen as listen_module

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def test_the_documented_failure_is_the_one_a_client_without_forms_gets():
    text = DOC.read_text()
    message = re.search(r"```\n(.*?)\n```", text, re.S).group(1)
    data = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    call = resolve(Docroot(DOCROOT).build(), AddressRead(data["address"]))
    outcome = step(call.request(can_elicit=False, active_phase=None))
    assert isinstance(outcome, Fail)
    assert str(outcome.error) == message  # the summary line, then the agent channel's questions (C7.12 c)
    assert outcome.message == message.partition("\n")[0]
    assert outcome.data() == data
    assert [question["when"] for question in data["questions"]] == [None, {"mode": ["branch", "pull-request"]}, None]


def test_every_key_of_a_question_is_documented():
    text = DOC.read_text()
    data = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    section = text[text.index("## The agent channel") : text.index("## Retrying")]
    documented = set(re.findall(r"^\| `([a-z]+)` \| ", section, re.M))
    assert set(data["questions"][0]) <= documented
    assert set(data["questions"][0]["fields"][0]) - set(data["fields"][0]) == {"titles"} and "`titles`" in section


def test_every_reason_the_core_can_give_is_documented():
    documented = set(re.findall(r"^\| `([a-z-]+)` \| ", DOC.read_text(), re.M))
    assert set(Fail.__annotations__["kind"].__args__) <= documented


# The "Codes" section: each row's code is the code a real client gets, in both eras.

MODES = ("legacy", "2026-07-28")
FORM = """---
elicitation:
  f:
    message: What is x?
    schema:
      type: object
      properties:
        x: {type: integer, minimum: 1}
      required: [x]
---
x is {{kwargs.x}}; {{#kwargs.x}}{{/kwargs.x}}
"""


def _codes_table() -> dict[str, int]:
    section = DOC.read_text().split("\n## Codes\n", 1)[1]
    rows = re.findall(r"^\| (.+?) \| `(-\d+)` \| .+ \|$", section, re.M)
    return {failure: int(code) for failure, code in rows}


async def _decline(message, response_type, params, context):
    return ElicitResult(action="decline")


def _docroot(tmp_path: Path) -> Path:
    root = tmp_path / "docroot"
    (root / "_commands").mkdir(parents=True)
    (root / "_commands" / "ok.md").write_text(FORM)
    (root / "_commands" / "broken.md").write_text("---\nelicitation: 3\n---\nhi\n")
    (root / "_commands" / "big.md").write_text("---\n---\n" + "word " * 200 + "\n")
    return root


async def _code(action) -> int:
    with pytest.raises(MCPError) as info:
        await action()
    return info.value.error.code


async def _gone(client: Client) -> int:
    """The code of a read once the watcher has seen the docroot folder go (until then, reads see the last snapshot)."""
    for attempt in range(200):
        with pytest.raises(MCPError) as info:
            await client.read_resource(f"guide://gone-{attempt}")
        if info.value.error.message == GONE:
            return info.value.error.code
        await asyncio.sleep(0.05)
    raise AssertionError(f"reads never said the docroot is gone; the last said {info.value.error.message!r}")


async def _observed(tmp_path: Path, mode: str, monkeypatch) -> dict[str, set[int]]:
    """The codes a client in `mode` gets, by the row of the table that names the failure."""
    root = _docroot(tmp_path)
    server = create_server(root, project=tmp_path, max_output=500)
    seen: dict[str, set[int]] = {}
    era = "legacy client" if mode == "legacy" else "2026-07-28 client"

    def note(row: str, code: int) -> None:
        seen.setdefault(row, set()).add(code)

    async with Client(server, mode=mode) as client:
        note(f"`reason` `missing`, {era}", await _code(lambda: client.read_resource("guide://_ok")))
        other = "the other `reason`s (`declined`, `cancelled`, `invalid`, `unknown-keyword`, `state`, `unanswered`)"
        note(other, await _code(lambda: client.read_resource("guide://_ok?x=0")))
        note(other, await _code(lambda: client.read_resource("guide://_ok?xx=1")))
        named = "an address or prompt line that names nothing, is not a `guide://` address or is over the length limit"
        for uri in ("guide://_nope", "guide://nope", "foo://x", "guide://_" + "a" * 5000):
            note(named, await _code(lambda uri=uri: client.read_resource(uri)))
        note(named, await _code(lambda: client.get_prompt("guide", {"command": "_nope"})))
        note("a prompt name the server does not have", await _code(lambda: client.get_prompt("nope", {})))
        note("a render stopped at `--max-output`", await _code(lambda: client.read_resource("guide://_big")))
        note("a file of the docroot is declared wrongly (an authoring error)", await _code(lambda: client.read_resource("guide://_broken")))
        if mode == "2026-07-28":
            monkeypatch.setattr(listen_module, "MAX_LISTEN_STREAMS", 0)
            row = "one `subscriptions/listen` stream more than `guide serve` serves at once"

            async def listening():
                async with listen(client.session, resources_list_changed=True):
                    pass

            note(row, await _code(listening))
        with monkeypatch.context() as patched:
            patched.setattr(service_module, "_resolve", lambda built, read: 1 / 0)
            note("an unexpected failure inside Guide", await _code(lambda: client.read_resource("guide://_other")))
        shutil.rmtree(root)
        note("the docroot folder is gone", await _gone(client))
    declining = create_server(_docroot(tmp_path / "again"), project=tmp_path, watch=False, clock=person())  # a person declines
    async with Client(declining, mode=mode, elicitation_handler=_decline) as client:
        note(other, await _code(lambda: client.read_resource("guide://_ok")))
    return seen


async def test_every_code_the_doc_gives_is_the_code_a_client_gets(tmp_path, monkeypatch):
    documented = _codes_table()
    observed: dict[str, set[int]] = {}
    for mode in MODES:
        for row, codes in (await _observed(tmp_path / mode, mode, monkeypatch)).items():
            observed.setdefault(row, set()).update(codes)
    assert set(observed) == set(documented)
    assert {row: {code} for row, code in documented.items()} == observed
