"""Issue 19, waiting legacy reads: what each read holds while a form stays unanswered is bounded.

A legacy read keeps the values answered so far while it waits for the next form,
up to `--answer-timeout`. Measured before the bound (50 HTTP sessions, each having
answered the first of two forms with 2 MB): the server grew by 4.6 MB a session,
230 MB in all; waiting on a form with nothing answered costs about 110 KiB a
session, most of it the MCP SDK's per-request state. The answers of one
interaction now hold at most `MAX_ANSWERS_LENGTH` characters: a longer answer is
refused and asked again, so it is never kept.
"""

import asyncio
import gc
import tracemalloc

from fastmcp import Client
from hypothesis import given
from hypothesis import strategies as st
from support.forms import declared, form
from support.fuzzing import fuzz

from guide.forms.step import MAX_ANSWERS_LENGTH, Answer, Ask, Request, step
from guide.forms.values import text_length
from guide.server.app import create_server

SESSIONS = 50
HUGE = 1_000_000
TWO_FORMS = """\
---
description: Two forms, asked in turn.
elicitation:
  first:
    message: First?
    schema: {type: object, properties: {a: {type: string}}, required: [a]}
  second:
    message: Second?
    schema: {type: object, properties: {b: {type: string}}, required: [b]}
---
TWO {{kwargs.a}} {{kwargs.b}}
"""
FORMS = declared(
    {
        "one": form({"a": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}}, ["a"]),
        "two": form({"b": {"type": "string"}}, ["b"]),
        "three": form({"c": {"type": "string"}}, ["c"]),
    }
)


@fuzz(200)
@given(answers=st.lists(st.tuples(st.sampled_from(["one", "two", "three"]), st.sampled_from([0, 10, 30_000, 70_000, 2_000_000])), max_size=8))
def test_what_an_interaction_keeps_never_exceeds_the_bound(answers):
    request = Request("guide://_c", FORMS)
    outcome = step(request)
    for form_id, length in answers:
        if not isinstance(outcome, Ask) or form_id not in outcome.progress.requested:
            break
        field = {"one": "a", "two": "b", "three": "c"}[form_id]
        outcome = step(request, outcome.progress, {form_id: Answer("accept", {field: "v" * length})})
        if isinstance(outcome, Ask):
            assert text_length(outcome.progress.values) <= MAX_ANSWERS_LENGTH


def test_a_huge_answer_is_asked_again_saying_the_bound():
    request = Request("guide://_c", FORMS)
    first = step(request)
    again = step(request, first.progress, {"one": Answer("accept", {"a": "v" * HUGE})})
    assert isinstance(again, Ask) and again.progress.values == {}
    assert f"Guide keeps at most {MAX_ANSWERS_LENGTH} for one read" in again.questions[0].message


async def test_fifty_sessions_waiting_after_a_huge_answer_do_not_keep_it(tmp_path, project):
    (tmp_path / "docroot" / "_commands").mkdir(parents=True)
    (tmp_path / "docroot" / "_commands" / "two.md").write_text(TWO_FORMS, encoding="utf-8")
    server = create_server(tmp_path / "docroot", project, watch=False)
    waiting, refused, hold = asyncio.Semaphore(0), [], asyncio.Event()

    async def handler(message, response_type, params, context):
        if "a" in params.requested_schema["properties"]:
            if "Guide keeps at most" in message:
                refused.append(message)
                return {"a": "short"}
            return {"a": "v" * HUGE}
        waiting.release()
        await hold.wait()

    clients = [Client(server, mode="legacy", elicitation_handler=handler) for _ in range(SESSIONS)]
    for client in clients:
        await client.__aenter__()
    gc.collect()
    tracemalloc.start()
    try:
        reads = [asyncio.create_task(client.read_resource("guide://_two")) for client in clients]
        for _ in range(SESSIONS):
            await waiting.acquire()  # every read now waits on its second form
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        hold.set()
        for read in reads:
            read.cancel()
        await asyncio.gather(*reads, return_exceptions=True)
        for client in clients:
            await client.__aexit__(None, None, None)
    # Keeping each huge answer would be 50 MB; the framework's own state is about 0.1 MB a session.
    assert grown < SESSIONS * HUGE / 4, f"{grown / 1e6:.1f} MB held by {SESSIONS} waiting reads"
    assert len(refused) == SESSIONS
