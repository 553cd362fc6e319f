"""The project of a read (C10 turn 4): `project=<path>` and `--project` inside `--projects-under`, legacy roots, in both eras.

One server (in memory) serves three projects: its own (`--project`, in phase
discussion) and `a` (planning) and `b` (review) inside the projects folder.
`_workflow/phase` renders the active phase and offers the others as choices.
"""

import os
from pathlib import Path
from urllib.parse import quote

import pytest
from e2e_support import Elicitor, prompt_error, prompt_text, read, read_error
from fastmcp import Client
from mcp_types import ElicitResult, InputRequiredResult, PromptReference, ResourceTemplateReference

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL

PHASES = ["discussion", "planning", "implementation", "check", "review"]


class Projects:
    """A folder of projects `a` (planning) and `b` (review), a folder outside it (implementation), and links in it."""

    def __init__(self, tmp_path: Path):
        self.under = tmp_path / "projects"
        self.a, self.b, self.outside = self.under / "a", self.under / "b", tmp_path / "elsewhere"
        for folder, phase in ((self.a, "planning"), (self.b, "review"), (self.outside, "implementation")):
            folder.mkdir(parents=True)
            (folder / ".guide.yaml").write_text(f"phase: {phase}\n", encoding="utf-8")
        (self.under / "to-a").symlink_to(self.a)
        (self.under / "out").symlink_to(self.outside)


@pytest.fixture
def projects(tmp_path) -> Projects:
    return Projects(tmp_path)


@pytest.fixture
def many(docroot, projects):
    """A server with `--projects-under` (its own project in phase discussion)."""
    docroot.phase("discussion")
    return create_server(docroot.root, project=docroot.project, projects_under=projects.under, watch=False)


def legacy_only(mode: str) -> None:
    if mode != "legacy":
        pytest.skip("roots, and an interaction held in one request, are the legacy protocol's")


def at(path: Path | str, command: str = "guide://_workflow/phase/check") -> str:
    """The address of `command` with `project=<path>`, encoded as an RFC 6570 client would (`/` as %2F)."""
    return f"{command}?project={quote(str(path), safe='')}"


async def test_one_server_answers_the_phase_of_two_projects_and_its_own(many, connect, projects):
    async with connect(many) as client:
        assert (await read(client, at(projects.a))).strip() == "PHASE from=planning to=check"
        assert (await read(client, at(projects.b))).strip() == "PHASE from=review to=check"
        assert (await read(client, "guide://_workflow/phase/check")).strip() == "PHASE from=discussion to=check"
        # the slash written as it is (a person's address) names the same folder
        assert (await read(client, f"guide://_workflow/phase/check?project={projects.a}")).strip() == "PHASE from=planning to=check"


async def test_the_form_offers_the_phases_of_the_project_named(many, connect, projects):
    elicitor = Elicitor().answer(phase={"phase": "check"})
    async with connect(many, elicitor) as client:
        assert (await read(client, at(projects.a, "guide://_workflow/phase"))).strip() == "PHASE from=planning to=check"
        assert (await read(client, at(projects.b, "guide://_workflow/phase"))).strip() == "PHASE from=review to=check"
    offered = [asked.schema["properties"]["phase"]["enum"] for asked in elicitor.calls]
    assert offered == [[p for p in PHASES if p != "planning"], [p for p in PHASES if p != "review"]]


async def test_the_prompt_flag_names_the_project(many, connect, projects):
    async with connect(many) as client:
        assert (await prompt_text(client, "guide", {"command": f"_workflow/phase check --project {projects.a}"})).strip() == \
            "PHASE from=planning to=check"
        assert (await prompt_text(client, "guide", {"command": f"_workflow/phase --project={projects.b} check"})).strip() == \
            "PHASE from=review to=check"
        assert (await prompt_text(client, "workflow.phase", {"phase": "check", "project": str(projects.b)})).strip() == \
            "PHASE from=review to=check"
        error = await prompt_error(client, "guide", {"command": "_workflow/phase check --project"})
    assert error.error.message == "flag --project needs a value: write --project=VALUE or --project VALUE"


async def test_a_link_inside_to_a_project_inside_is_that_project(many, connect, projects):
    async with connect(many) as client:
        assert (await read(client, at(projects.under / "to-a"))).strip() == "PHASE from=planning to=check"


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("{outside}", "is not a folder inside the projects this server serves"),
        ("{under}/out", "is not a folder inside the projects this server serves"),  # a link out
        ("{under}/missing", "is not a folder inside the projects this server serves"),
        ("{under}/a/.guide.yaml", "is not a folder inside the projects this server serves"),  # a file, not a folder
        ("{under}/../elsewhere", "has a . or .. segment"),
        ("{under}/a/../../elsewhere", "has a . or .. segment"),
        ("{under}%2F..%2Felsewhere", "holds a percent-encoded separator or dot"),  # encoded twice: %252F in the address
        ("{under}/a%2e%2e", "holds a percent-encoded separator or dot"),
        ("projects/a", "is not an absolute path"),
        ("", "is empty"),
    ],
)
async def test_a_project_outside_the_folder_is_refused_in_one_line(many, connect, projects, given, says):
    text = given.format(outside=projects.outside, under=projects.under)
    async with connect(many) as client:
        error = await read_error(client, at(text))
    message = error.error.message
    assert says in message and "\n" not in message
    assert message.endswith("accepted: project=<absolute path of a project folder inside the server's --projects-under folder>")
    assert "implementation" not in message and str(projects.outside) not in message.replace(text, "")
    if not given.startswith("{under}/..") and ".." not in given:
        assert str(projects.under) not in message.replace(text, "")  # the folder the operator chose is not shown


async def test_the_keyword_twice_is_refused(many, connect, projects):
    async with connect(many) as client:
        error = await read_error(client, f"{at(projects.a)}&project={quote(str(projects.b), safe='')}")
    assert error.error.message.startswith("the keyword project is given 2 times; give it once")


async def test_without_the_setting_the_keyword_is_refused(server, connect, docroot):
    async with connect(server) as client:
        error = await read_error(client, at(docroot.project))
        flag = await prompt_error(client, "guide", {"command": f"_workflow/phase check --project {docroot.project}"})
    for refused in (error, flag):
        assert refused.error.message.startswith("the keyword project names the project of a read only when the server is started "
                                                "with --projects-under DIR")


async def test_a_retry_cannot_change_the_project(many, mode, projects):
    if mode == "legacy":
        pytest.skip("continuation state exists only on 2026-07-28; a legacy read decides its project once")
    current = projects.under / "current"
    current.symlink_to(projects.a)
    uri = at(current, "guide://_workflow/phase")
    async with Client(many, mode=mode, elicitation_handler=_unanswerable) as client:
        first = await client.session.read_resource(uri, allow_input_required=True)
        assert isinstance(first, InputRequiredResult)
        assert "planning" not in first.input_requests["next"].params.requested_schema["properties"]["phase"]["enum"]
        answer = {"next": ElicitResult(action="accept", content={"phase": "check"})}
        elsewhere = await _retry_error(client, at(projects.b, "guide://_workflow/phase"), first.request_state, answer)
        assert elsewhere == "Invalid or expired requestState"  # the sealed state is bound to the address it was made for
        os.unlink(current)
        current.symlink_to(projects.b)  # the same keyword now names another project
        switched = await _retry_error(client, uri, first.request_state, answer)
        assert switched.startswith("the continuation state was made for another project; start again")
        os.unlink(current)
        current.symlink_to(projects.a)
        done = await client.session.read_resource(uri, request_state=first.request_state, input_responses=answer, allow_input_required=True)
    assert done.contents[0].text.strip() == "PHASE from=planning to=check"


async def _unanswerable(message, response_type, params, context):
    raise AssertionError(f"a round driven by hand must not reach the handler: {message}")


async def _retry_error(client: Client, uri: str, state: str, answers: dict) -> str:
    try:
        await client.session.read_resource(uri, request_state=state, input_responses=answers, allow_input_required=True)
    except Exception as error:  # noqa: BLE001 - the message is what is checked
        return error.error.message
    raise AssertionError("the retry was not refused")


async def test_legacy_roots_name_the_project(many, mode, projects):
    roots = [f"file://{projects.a}"]
    async with Client(many, mode=mode, roots=roots) as client:
        text = await read(client, "guide://_workflow/phase/check")
        named = await read(client, at(projects.b))  # the keyword wins over the roots
    assert named.strip() == "PHASE from=review to=check"
    # roots are deprecated on 2026-07-28: there the read is about the server's own project
    assert text.strip() == ("PHASE from=planning to=check" if mode == "legacy" else "PHASE from=discussion to=check")


@pytest.mark.parametrize("roots", [["{a}", "{b}"], ["{outside}"], ["{under}/out"], ["file://otherhost{a}"]])
async def test_roots_that_name_no_single_project_inside_leave_the_servers_own(many, projects, roots, mode):
    legacy_only(mode)
    given = [f"file://{root.format(a=projects.a, b=projects.b, outside=projects.outside, under=projects.under)}"
             if root.startswith("{") else root.format(a=projects.a) for root in roots]
    async with Client(many, mode="legacy", roots=given) as client:
        assert (await read(client, "guide://_workflow/phase/check")).strip() == "PHASE from=discussion to=check"


async def test_one_root_inside_among_others_names_it(many, projects, mode):
    legacy_only(mode)
    async with Client(many, mode="legacy", roots=[f"file://{projects.outside}", f"file://{projects.b}"]) as client:
        assert (await read(client, "guide://_workflow/phase/check")).strip() == "PHASE from=review to=check"


async def test_templates_and_command_prompts_list_the_keyword_only_when_reads_may_name_a_project(many, server, connect):
    listed = {}
    for name, target in (("many", many), ("one", server)):
        async with connect(target) as client:
            templates = {t.name: t.uri_template for t in await client.list_resource_templates()}
            prompts = {p.name: [argument.name for argument in p.arguments or []] for p in await client.list_prompts()}
        listed[name] = (templates["workflow/phase"], prompts["workflow.phase"])
    assert listed["many"] == ("guide://_workflow/phase{?phase,project}", ["phase", "project"])
    assert listed["one"] == ("guide://_workflow/phase{?phase}", ["phase"])


async def test_completion_offers_the_projects_inside_and_the_phases_of_the_one_named(many, connect, projects):
    prompt = PromptReference(name="workflow.phase")
    async with connect(many) as client:
        templates = {t.name: t.uri_template for t in await client.list_resource_templates()}
        folders = await _complete(client, prompt, "project", f"{projects.under}/")
        only_a = await _complete(client, ResourceTemplateReference(uri=templates["workflow/phase"]), "project", f"{projects.under}/a")
        in_b = await _complete(client, prompt, "phase", "", {"project": str(projects.b)})
        own = await _complete(client, prompt, "phase", "")
        outside = await _complete(client, prompt, "phase", "", {"project": str(projects.outside)})
    assert folders == [str(projects.a), str(projects.b), str(projects.under / "to-a")]  # not `out`, a link that leads out
    assert only_a == [str(projects.a)]
    assert in_b == [p for p in PHASES if p != "review"]
    assert own == outside == [p for p in PHASES if p != "discussion"]  # a folder outside names nothing: the server's own project


async def _complete(client, ref, name, value, context=None) -> list[str]:
    return list((await client.complete(ref, {"name": name, "value": value}, context_arguments=context)).values)


async def test_the_app_form_keeps_the_project_between_its_rounds(many, mode, projects):
    current = projects.under / "current"
    current.symlink_to(projects.a)
    uri = at(current, "guide://_workflow/phase")
    answers = {"next": {"action": "accept", "content": {"phase": "check"}}}
    async with Client(many, mode=mode, roots=[f"file://{projects.b}"]) as client:
        shown = (await client.call_tool(OPEN_TOOL, {"uri": uri})).structured_content
        rooted = (await client.call_tool(OPEN_TOOL, {"uri": "guide://_workflow/phase"})).structured_content
        os.unlink(current)
        current.symlink_to(projects.b)
        refused = await client.call_tool(SUBMIT_TOOL, {"uri": uri, "state": shown["state"], "answers": answers}, raise_on_error=False)
        os.unlink(current)
        current.symlink_to(projects.a)
        done = await client.call_tool(SUBMIT_TOOL, {"uri": uri, "state": shown["state"], "answers": answers})
    assert "planning" not in shown["forms"][0]["schema"]["properties"]["phase"]["enum"]
    assert refused.is_error and "the continuation state was made for another project" in refused.content[0].text
    assert done.structured_content["text"].strip() == "PHASE from=planning to=check"
    # the round's own request names the project by the client's root on the legacy protocol only
    left_out = "review" if mode == "legacy" else "discussion"
    assert rooted["forms"][0]["schema"]["properties"]["phase"]["enum"] == [p for p in PHASES if p != left_out]


async def test_a_legacy_read_keeps_the_project_it_started_with(many, projects, mode):
    legacy_only(mode)
    current = projects.under / "current"
    current.symlink_to(projects.a)

    async def switch_then_answer(message, response_type, params, context):
        os.unlink(current)
        current.symlink_to(projects.b)  # while the person answers, the link moves to another project
        return {"phase": "check"}

    async with Client(many, mode="legacy", elicitation_handler=switch_then_answer) as client:
        text = await read(client, at(current, "guide://_workflow/phase"))
    assert text.strip() == "PHASE from=planning to=check"


async def test_roots_a_client_cannot_list_leave_the_servers_own_with_one_log_line(many, projects, mode, caplog):
    legacy_only(mode)

    def broken(context):
        raise RuntimeError("no roots today")

    async with Client(many, mode="legacy", roots=broken) as client:
        caplog.clear()
        text = await read(client, "guide://_workflow/phase/check")
    assert text.strip() == "PHASE from=discussion to=check"
    [line] = [record.getMessage() for record in caplog.records if "declares roots" in record.getMessage()]
    assert line.endswith("declares roots but did not list them (no roots today); its read is about the default project")
