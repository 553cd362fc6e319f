"""The era of a request is picked once and carried; a refused read raises an error of its own each time (issue 28)."""

import copy

from e2e_support import read, read_error
from fastmcp import Client
from mcp.client import advertise

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL
from guide.server.eras import KINDS, Eras
from guide.server.service import Service

APPS = {"mimeTypes": ["text/html;profile=mcp-app"]}


def counted(monkeypatch, owner, name: str) -> list:
    """Record each call of `owner.name` (its arguments after `self`), calling through."""
    calls, original = [], getattr(owner, name)

    def recording(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls


async def test_a_read_picks_its_era_once_per_request(server, connect, elicitor, monkeypatch, mode):
    elicitor.answer(mode={"mode": "uncommitted"})
    async with connect(server, elicitor) as client:
        picks, requests = counted(monkeypatch, Eras, "for_request"), counted(monkeypatch, Service, "read")
        text = await read(client, "guide://_review")
    assert text.strip() == "REVIEW mode=uncommitted reference= extra="
    # Legacy asks the form inside the one request; 2026-07-28 answers input_required and gets a retry.
    assert len(requests) == (2 if mode == "2026-07-28" else 1)
    assert len(picks) == len(requests)


async def test_an_app_form_round_picks_its_era_once(server, monkeypatch, mode):
    async with Client(server, mode=mode, extensions=[advertise("io.modelcontextprotocol/ui", copy.deepcopy(APPS))]) as client:
        picks = counted(monkeypatch, Eras, "for_request")
        shown = (await client.call_tool(OPEN_TOOL, {"uri": "guide://_review"})).structured_content
        assert shown["guide"] == "form" and len(picks) == 1
        answers = {"target": {"action": "accept", "content": {"mode": "uncommitted"}}}
        done = await client.call_tool(SUBMIT_TOOL, {"uri": shown["uri"], "state": shown["state"], "answers": answers})
    assert done.structured_content["text"].strip() == "REVIEW mode=uncommitted reference= extra="
    assert len(picks) == 2


async def test_each_refused_read_raises_an_error_of_its_own(docroot, connect, monkeypatch):
    server = create_server(docroot.root, project=docroot.project, watch=False)  # no watcher: the second read finds the first one's build
    raised = [counted(monkeypatch, kind, "error") for kind in KINDS]
    async with connect(server) as client:
        first = await read_error(client, "guide://_nosuch")
        second = await read_error(client, "guide://_nosuch")
    assert first.error.message.startswith("no command nosuch") and first.error.message == second.error.message
    errors = [error for calls in raised for (error,) in calls]
    assert len(errors) == 2
    # The second read is answered from what the first kept; it still raises a new object, so no
    # request's traceback or context ends up on another's error (nor on the kept one).
    assert errors[0] is not errors[1]
    assert errors[0].__traceback__ is not errors[1].__traceback__
