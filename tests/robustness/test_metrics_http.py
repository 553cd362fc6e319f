"""Issue 29 item 5: what an operator sees of a scripted session, at `GET /metrics` and in the access line of each read.

A real `guide serve --transport http --metrics 1` with static tokens serves the
bundled example; a real client reads in both eras (help, a document, a command
rendered from keywords, a command whose form is declined) and holds a
2026-07-28 listen stream open while the counters are scraped.
"""

from contextlib import AsyncExitStack

import httpx2
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StreamableHttpTransport
from mcp import MCPError
from mcp.client.subscriptions import listen
from prometheus_client.parser import text_string_to_metric_families
from support.servers import ALICE_TOKEN, example_http

ERAS = ("legacy", "2026-07-28")
SECRET = "feature%2Fsecret-branch"
"""A keyword value that must never reach the log."""


PERSON = {"GUIDE_UNREAD_DECLINE": "0"}
"""The script declines at once, as no person could: with this setting every decline is taken for a person's."""


async def _decline(message, response_type, params, context):
    return ElicitResult(action="decline")


async def _session(url: str, mode: str) -> None:
    async with Client(StreamableHttpTransport(url, auth=ALICE_TOKEN), mode=mode, elicitation_handler=_decline) as client:
        await client.read_resource("guide://_help")
        await client.read_resource("guide://lang/python")
        await client.read_resource(f"guide://_review?mode=branch&reference={SECRET}&depth=quick")
        try:
            await client.read_resource("guide://_review")
        except MCPError as error:
            assert error.error.data["reason"] == "declined"
        else:
            raise AssertionError("a declined form must fail the read")


def _samples(text: str) -> dict[tuple, float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, *sorted(sample.labels.items()))] = sample.value
    return found


def _value(samples: dict[tuple, float], name: str, **labels: str) -> float:
    return samples.get((name, *sorted(labels.items())), 0.0)


async def test_metrics_count_a_scripted_session_in_both_eras_and_need_the_token(tmp_path):
    with example_http(tmp_path, {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN}", "GUIDE_METRICS": "1", **PERSON}) as url:
        for mode in ERAS:
            await _session(url, mode)
        metrics_url = url.removesuffix("/mcp") + "/metrics"
        async with AsyncExitStack() as stack:
            listener = await stack.enter_async_context(Client(StreamableHttpTransport(url, auth=ALICE_TOKEN), mode="2026-07-28"))
            await stack.enter_async_context(listen(listener.session, resources_list_changed=True))
            async with httpx2.AsyncClient() as http:
                refused = await http.get(metrics_url)
                scraped = await http.get(metrics_url, headers={"Authorization": f"Bearer {ALICE_TOKEN}"})
    assert refused.status_code == 401 and "bearer token" in refused.text
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    samples = _samples(scraped.text)
    # Legacy asks the review's first form and stops at its decline; 2026-07-28 asks both forms that apply in one
    # round (target, depth), and the retry declines both: the read that asks, then the read that fails.
    for era, command_reads, forms in (("legacy", 2, 1), ("2026-07-28", 3, 2)):
        labels = {"era": era, "channel": "native"}
        assert _value(samples, "guide_reads_total", kind="help", **labels) == 1
        assert _value(samples, "guide_reads_total", kind="document", **labels) == 1
        assert _value(samples, "guide_reads_total", kind="command", **labels) == command_reads
        assert _value(samples, "guide_read_failures_total", reason="declined", **labels) == 1
        assert _value(samples, "guide_forms_total", event="asked", **labels) == forms
        assert _value(samples, "guide_forms_total", event="declined", **labels) == forms
        assert _value(samples, "guide_forms_total", event="answered", **labels) == 0
    assert _value(samples, "guide_listen_streams", era="2026-07-28") == 1
    assert _value(samples, "guide_docroot_ready") == 1 and _value(samples, "guide_store_usable") == 1
    entries = {kind: _value(samples, "guide_docroot_entries", kind=kind) for kind in ("command", "skill", "partial", "document")}
    assert entries == {"command": 6, "skill": 1, "partial": 3, "document": 4}  # the bundled example, as its start line counts it
    assert _value(samples, "guide_build_seconds_count") >= 1


async def test_each_read_has_an_access_line_without_values_in_both_eras(tmp_path):
    with example_http(tmp_path, {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN}", **PERSON}) as url:
        for mode in ERAS:
            await _session(url, mode)
        async with httpx2.AsyncClient() as http:
            assert (await http.get(url.removesuffix("/mcp") + "/metrics")).status_code == 404  # off unless GUIDE_METRICS=1
    log = (tmp_path / "server.log").read_text()
    lines = [line for line in log.splitlines() if " guide.access: " in line]
    for era in ERAS:
        mine = [line.split(" guide.access: ", 1)[1] for line in lines if f"({era}, native)" in line]
        assert [line.split(f" ({era}")[0] for line in mine] == [
            "alice read guide://_help",
            "alice read guide://lang/python",
            "alice read guide://_review?depth&mode&reference",
            "alice read guide://_review",
        ] + (["alice read guide://_review"] if era == "2026-07-28" else []), mine
        outcomes = [line.split("): ", 1)[1].rsplit(" in ", 1)[0] for line in mine]
        assert outcomes == ["ok", "ok", "ok", "failed (declined)"] if era == "legacy" else ["ok", "ok", "ok", "asked", "failed (declined)"]
        assert all(line.endswith(" ms") for line in mine)
    assert SECRET not in log and "secret-branch" not in log


async def test_the_access_line_can_be_turned_off(tmp_path):
    with example_http(tmp_path, {"GUIDE_ACCESS_LOG": "0"}) as url:
        async with Client(StreamableHttpTransport(url), mode="2026-07-28") as client:
            await client.read_resource("guide://_help")
    assert " guide.access: " not in (tmp_path / "server.log").read_text()
