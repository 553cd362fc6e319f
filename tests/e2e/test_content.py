"""Skills, members, documents, partials, workflow phases and the exact schemas clients receive (C2-C5, C7.9, C9, C10)."""

import copy
import textwrap

import yaml
from e2e_docroot import BASE_FILES
from e2e_support import PHASES, eventually, read, read_error
from fastmcp.client import Client
from mcp import MCPError

from guide import __version__


def declared_forms(rel: str) -> dict:
    """The `elicitation` mapping of a standard docroot file, as written."""
    frontmatter = textwrap.dedent(BASE_FILES[rel]).split("---\n")[1]
    return yaml.safe_load(frontmatter)["elicitation"]


# --- skills, members and documents --------------------------------------------------------------


async def test_skill_entrypoint_with_keywords_and_interactively(server, connect, elicitor):
    elicitor.answer(kind={"kind": "bug"}, ticket={"ticket": "GD-12"})
    async with connect(server, elicitor) as client:
        supplied = await read(client, "guide://$triage?kind=bug&ticket=GD-1&urgent=true")
        assert elicitor.calls == []
        partly = await read(client, "guide://$triage?kind=bug")
        assert elicitor.keys == ["ticket"]
        asked = await read(client, "guide://$triage")
    assert supplied.strip() == "TRIAGE skill=triage kind=bug ticket=GD-1 urgent=true"
    assert partly.strip() == "TRIAGE skill=triage kind=bug ticket=GD-12 urgent=false"
    assert asked.strip() == partly.strip()
    assert elicitor.keys == ["ticket", "kind", "ticket"]


async def test_skill_member_and_document_never_elicit(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        member = await read(client, "guide://$triage/notes.md")
        document = await read(client, "guide://docs/style")
        missing_member = await read_error(client, "guide://$triage/nothing.md")
        missing_document = await read_error(client, "guide://docs/nothing")
    assert member == "TRIAGE NOTES {{kwargs.kind}} stays raw\n"  # served as written, never rendered
    assert document == "STYLE GUIDE {{kwargs.x}} stays raw\n"
    assert "nothing.md" in missing_member.error.message
    assert "docs/nothing" in missing_document.error.message
    assert elicitor.calls == []


async def test_listing_shows_entrypoints_documents_and_members(server, connect):
    async with connect(server) as client:
        uris = {str(resource.uri) for resource in await client.list_resources()}
        templates = {t.uri_template for t in await client.list_resource_templates()}
    assert {"guide://_review", "guide://_workflow/phase", "guide://$triage", "guide://docs/style", "guide://$triage/notes.md"} <= uris
    assert "guide://_hidden" not in uris
    assert "guide://_workflow/phase{?phase}" in templates
    assert not any(uri.startswith(("guide://_partials", "guide://_commands")) for uri in uris)


async def test_command_whose_requires_fail_does_not_exist(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        error = await read_error(client, "guide://_hidden")
        help_error = await read_error(client, "guide://_help/hidden")
    assert "hidden" in error.error.message and "hidden" in help_error.error.message


# --- partials -----------------------------------------------------------------------------------


async def test_included_partial_adds_its_form_but_not_its_body(server, connect, elicitor):
    elicitor.answer(topic={"topic": "speed"}, note={"note": "be brief"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_withpartial")
    assert text.strip() == "WITH topic=speed note=be brief warehouse=[]"
    assert "PARTIAL-EXTRA" not in text
    assert elicitor.keys == ["topic", "note"]  # the data-team partial's requires-team fails: no warehouse form


async def test_partial_body_appears_where_rendered(server, connect, elicitor):
    elicitor.answer(note={"note": "hi"})
    async with connect(server, elicitor) as client:
        shown = await read(client, "guide://_showpartial")
        assert elicitor.keys == ["note"]
        body_only = await read(client, "guide://_bodyonly")
    assert shown.strip() == "SHOW [PARTIAL-EXTRA note=hi\n] []"
    assert "DATA-TEAM-ONLY" not in shown
    assert body_only.strip() == "BODYONLY [PARTIAL-EXTRA note=\n]"  # rendering a partial asks for nothing
    assert elicitor.keys == ["note"]


async def test_failing_partial_takes_no_keywords_and_asks_nothing(server, connect, mode):
    async with connect(server) as client:
        text = await read(client, "guide://_withpartial?topic=t&note=n&warehouse=w")
        prompts = {p.name: p for p in await client.list_prompts()}
    # an undeclared keyword is passed through untouched; no warehouse form exists
    assert text.strip() == "WITH topic=t note=n warehouse=[w]"
    assert "warehouse" not in [a.name for a in prompts["withpartial"].arguments]


# --- workflow phases ----------------------------------------------------------------------------


async def test_phase_choice_leaves_out_the_active_phase(server, connect, docroot, elicitor):
    docroot.phase("planning")
    elicitor.answer(phase={"phase": "check"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_workflow/phase")
    assert text.strip() == "PHASE from=planning to=check"
    (asked,) = elicitor.calls
    assert asked.schema["properties"]["phase"] == {
        "type": "string",
        "title": "Next phase",
        "enum": ["discussion", "implementation", "check", "review"],
    }


async def test_active_phase_is_accepted_as_arg_and_keyword(server, connect, docroot, elicitor):
    docroot.phase("planning")
    async with connect(server, elicitor) as client:
        arg = await read(client, "guide://_workflow/phase/planning")
        keyword = await read(client, "guide://_workflow/phase?phase=planning")
        other = await read(client, "guide://_workflow/phase/review")
        bogus = await read_error(client, "guide://_workflow/phase/shipping")
    assert arg.strip() == keyword.strip() == "PHASE from=planning to=planning"
    assert other.strip() == "PHASE from=planning to=review"
    assert "phase" in bogus.error.message and "shipping" in bogus.error.message
    assert elicitor.calls == []


async def test_without_a_state_file_every_phase_is_offered(server, connect, elicitor):
    elicitor.answer(phase={"phase": "discussion"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_workflow/phase")
    assert text.strip() == "PHASE from= to=discussion"
    assert elicitor.calls[0].schema["properties"]["phase"]["enum"] == PHASES


async def test_phase_change_in_the_state_file_is_seen(server, connect, docroot, elicitor):
    elicitor.answer(phase={"phase": "review"})
    async with connect(server, elicitor) as client:
        docroot.phase("check")
        first = await read(client, "guide://_workflow/phase")
        docroot.phase("review")
        second = await read(client, "guide://_workflow/phase?phase=check")
    assert first.strip() == "PHASE from=check to=review"
    assert second.strip() == "PHASE from=review to=check"
    assert "check" not in elicitor.calls[0].schema["properties"]["phase"]["enum"]


# --- the schema a client receives ---------------------------------------------------------------


async def test_client_receives_the_declared_schema_exactly(server, connect, elicitor):
    answer = {"name": "bob", "tags": ["y", "z"], "count": 4, "ratio": 0.25, "size": "l", "picks": ["q"], "ok": False}
    elicitor.answer(name=answer)
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_schema")
    assert text.strip() == "SCHEMA name=bob tags=y, z count=4"
    (asked,) = elicitor.calls
    assert asked.schema == declared_forms("_commands/schema.md")["everything"]["schema"]
    assert asked.message == "Fill in everything."


async def test_c5_schemas_are_received_unchanged(server, connect, elicitor):
    elicitor.answer(mode={"mode": "branch"}, reference={"reference": "main"})
    async with connect(server, elicitor) as client:
        await read(client, "guide://_review")
    forms = declared_forms("_commands/review.md")
    assert [asked.schema for asked in elicitor.calls] == [forms["target"]["schema"], forms["reference"]["schema"]]


async def test_workflow_source_is_replaced_by_the_enum_only(server, connect, docroot, elicitor):
    docroot.phase("discussion")
    elicitor.answer(phase={"phase": "planning"})
    async with connect(server, elicitor) as client:
        await read(client, "guide://_workflow/phase")
    expected = copy.deepcopy(declared_forms("_commands/workflow/phase.md")["next"]["schema"])
    del expected["properties"]["phase"]["source"]
    expected["properties"]["phase"]["enum"] = PHASES[1:]
    assert elicitor.calls[0].schema == expected


# --- server identity and live edits -------------------------------------------------------------


async def test_server_reports_its_name_and_version(server, connect, mode):
    async with connect(server) as client:
        if mode == "legacy":
            info = client.initialize_result.server_info
            identity = (info.name, info.version)
        else:
            discovered = await client.session.send_discover("2026-07-28")
            info = discovered["_meta"]["io.modelcontextprotocol/serverInfo"]
            identity = (info["name"], info["version"])
    assert identity == ("guide", __version__)
    # a client that negotiates the era itself learns the same identity
    async with Client(server, mode="auto" if mode == "2026-07-28" else "legacy") as client:
        assert client.protocol_version == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25")
        assert (client.server_info.name, client.server_info.version) == ("guide", __version__)


async def test_edits_are_served_without_a_restart(server, connect, docroot, elicitor):
    async def shows(uri: str, text: str):
        async def check():
            return text in await read(client, uri)

        return check

    async with connect(server, elicitor) as client:
        assert (await read(client, "guide://_bodyonly")).startswith("BODYONLY")
        docroot.write("_commands/bodyonly.md", "---\ndescription: edited\n---\nEDITED BODY, now longer than before\n")
        await eventually(await shows("guide://_bodyonly", "EDITED BODY"), timeout=2.0)
        docroot.write("_commands/fresh.md", "FRESH COMMAND\n")
        await eventually(await shows("guide://_fresh", "FRESH COMMAND"), timeout=2.0)
        docroot.write("docs/style.md", "STYLE v2\n")
        await eventually(await shows("guide://docs/style", "STYLE v2"), timeout=2.0)
        (docroot.root / "_commands" / "fresh.md").unlink()

        async def gone():
            try:
                await client.read_resource("guide://_fresh")
            except MCPError as error:
                return "fresh" in error.error.message
            return False

        await eventually(gone, timeout=2.0)


async def test_flag_edit_in_guide_yaml_is_served_without_a_restart(server, connect, docroot, elicitor):
    elicitor.answer(topic={"topic": "t"}, note={"note": "n"}, warehouse={"warehouse": "w1"})
    async with connect(server, elicitor) as client:
        assert "hidden" in (await read_error(client, "guide://_hidden")).error.message
        config = docroot.root / "guide.yaml"
        config.write_text(config.read_text().replace("team: platform", "team: data"), encoding="utf-8")

        async def hidden_exists():
            return (await read(client, "guide://_hidden")).strip() == "HIDDEN team=data workflow=true"

        await eventually(hidden_exists, timeout=2.0)
        text = await read(client, "guide://_withpartial")
        shown = await read(client, "guide://_showpartial?note=x")
    assert text.strip() == "WITH topic=t note=n warehouse=[w1]"
    assert elicitor.keys == ["topic", "note", "warehouse"]
    assert "DATA-TEAM-ONLY" in shown


async def test_bundled_example_docroot(example_server, connect, elicitor, mode):
    elicitor.answer(mode={"mode": "branch"}, reference={"reference": "feature/x"}, depth={"depth": "thorough"})
    async with connect(example_server, elicitor) as client:
        review = await read(client, "guide://_review")
        release = await read(client, "guide://_release?label=v1.2.0&attempts=2&dry_run=true&highlights=faster")
        phase = await read(client, "guide://_workflow/phase/check")
    assert "# Review: branch" in review and "`feature/x`" in review and "**thorough**" in review
    # legacy asks one form at a time in declaration order; 2026-07-28 asks every pending form at once
    assert elicitor.keys == (["mode", "reference", "depth"] if mode == "legacy" else ["mode", "depth", "reference"])
    assert "- attempts: 2" in release and "- dry run: true" in release and "coverage threshold: 0.8" in release
    assert "This text and its form apply only to the data team" not in release
    assert "for the command `release`" in release
    assert "Move it to **check**" in phase
    assert "- discussion\n- planning\n- implementation\n- check\n- review" in phase  # workflow.phases, in order


async def test_bundled_example_without_capability(example_server, connect, mode):
    async with connect(example_server) as client:
        review = await read(client, "guide://_review?mode=uncommitted")
        standup = await read(client, "guide://_standup")
        error = await read_error(client, "guide://_onboard")
    assert "No depth was chosen, so this is a quick pass." in review
    assert "No focus was given" in standup
    assert "supply the keywords: email (string, required; in email format), role (string, required; one of: dev, ops, pm)" in error.error.message
