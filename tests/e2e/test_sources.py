"""Sources end to end (C5 turn 4): git-branches, git-tags, files:<glob>, list:<name>, in forms, keywords and completion, in both eras."""

import asyncio
import os
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from e2e_support import INVALID_PARAMS, Elicitor, prompt_text, read, read_error
from mcp import MCPError
from mcp_types import PromptReference, ResourceTemplateReference
from support.gitrepo import counting_git, git, hanging_git, make_repo, path_with

from guide.server.app import create_server

GUIDE_YAML = """\
    lists:
      envs: [staging, production]
      regions:
        - {value: eu, title: Europe}
        - {value: us, title: United States}
    """
CHECKOUT = """\
    ---
    description: Check out a branch.
    args: [branch]
    elicitation:
      pick:
        message: Which branch?
        schema:
          type: object
          properties:
            branch: {type: string, title: Branch, source: git-branches}
          required: [branch]
    ---
    CHECKOUT {{kwargs.branch}}
    """
RELEASE = """\
    ---
    description: Release a tag to an environment and regions.
    elicitation:
      where:
        message: Where to?
        schema:
          type: object
          properties:
            tag: {type: string, source: git-tags}
            env: {type: string, source: "list:envs", default: staging}
            regions: {type: array, items: {type: string, source: "list:regions"}}
          required: [tag, env]
    ---
    RELEASE {{kwargs.tag}} {{kwargs.env}} {{#kwargs.regions}}{{.}} {{/kwargs.regions}}
    """
OPEN = """\
    ---
    description: Open notes.
    elicitation:
      which:
        message: Which notes?
        schema:
          type: object
          properties:
            notes: {type: array, items: {type: string, source: "files:docs/**/*.md"}}
          required: [notes]
    ---
    OPEN {{#kwargs.notes}}{{.}} {{/kwargs.notes}}
    """


@pytest.fixture
def sourced(empty_docroot):
    """A docroot with sourced commands, over a project that is a real git repository with docs."""
    empty_docroot.write("guide.yaml", GUIDE_YAML)
    empty_docroot.write("_commands/checkout.md", CHECKOUT)
    empty_docroot.write("_commands/release.md", RELEASE)
    empty_docroot.write("_commands/open.md", OPEN)
    make_repo(empty_docroot.project, branches=["feature/x", "zeta"], tags=["v1.0", "v2.0"])
    docs = empty_docroot.project / "docs"
    (docs / "deep").mkdir(parents=True)
    for rel in ("b.md", "a.md", "deep/c.md", "skip.txt"):
        (docs / rel).write_text("x\n", encoding="utf-8")
    return empty_docroot


@pytest.fixture
def sourced_server(sourced):
    return create_server(sourced.root, project=sourced.project, watch=False)


async def test_git_branches_are_delivered_as_an_enum_and_the_answer_renders(sourced_server, connect):
    elicitor = Elicitor().answer(branch={"branch": "feature/x"})
    async with connect(sourced_server, elicitor) as client:
        text = await read(client, "guide://_checkout")
    assert text.strip() == "CHECKOUT feature/x"
    schema = elicitor.calls[0].schema["properties"]["branch"]
    assert schema == {"type": "string", "enum": ["feature/x", "main", "zeta"], "title": "Branch"}  # sorted; `source` removed


async def test_a_keyword_or_arg_is_checked_against_the_branches_as_they_are_then(sourced, sourced_server, connect):
    elicitor = Elicitor()
    async with connect(sourced_server, elicitor) as client:
        refused = await read_error(client, "guide://_checkout/later")
        git(sourced.project, "branch", "later")  # made while the server runs: the next read sees it
        taken = await read(client, "guide://_checkout/later")
        keyword = await read(client, "guide://_checkout?branch=zeta")
    assert refused.error.code == INVALID_PARAMS
    assert refused.error.message.startswith("invalid keyword branch: later is not one of the choices; it accepts one of: feature/x, main, zeta")
    assert taken.strip() == "CHECKOUT later" and keyword.strip() == "CHECKOUT zeta"
    assert elicitor.calls == []


async def test_sources_are_read_again_only_after_they_change_and_each_read_offers_them_as_they_are_then(sourced, connect, monkeypatch, tmp_path):
    log = tmp_path / "git-runs"
    monkeypatch.setenv("PATH", path_with(counting_git(tmp_path / "bin", log)))
    monkeypatch.setattr("guide.project.stamps.SETTLED_NS", 50_000_000)  # the server's is 2 s: a stamp younger than that is not trusted

    async def offered(client, elicitor: Elicitor) -> tuple[list[str], list[str], int]:
        """The branches and notes the next forms offer, once every stamp so far has settled, and the git runs they took."""
        await asyncio.sleep(0.06)
        before = len(log.read_text().splitlines()) if log.exists() else 0
        await read(client, "guide://_checkout")
        await read(client, "guide://_open")
        runs = len(log.read_text().splitlines()) - before
        branch, notes = elicitor.calls[-2].schema["properties"]["branch"], elicitor.calls[-1].schema["properties"]["notes"]
        return branch["enum"], notes["items"]["enum"], runs

    elicitor = Elicitor().answer(branch={"branch": "main"}, notes={"notes": ["docs/a.md"]})
    notes = ["docs/a.md", "docs/b.md", "docs/deep/c.md"]
    async with connect(create_server(sourced.root, project=sourced.project, watch=False), elicitor) as client:
        first = await offered(client, elicitor)
        again = await offered(client, elicitor)
        git(sourced.project, "branch", "made-meanwhile")
        (sourced.project / "docs" / "deep" / "new.md").write_text("x\n", encoding="utf-8")
        changed = await offered(client, elicitor)
        git(sourced.project, "branch", "-D", "zeta")
        (sourced.project / "docs" / "b.md").unlink()
        removed = await offered(client, elicitor)
    assert first == (["feature/x", "main", "zeta"], notes, 1)
    assert again == (["feature/x", "main", "zeta"], notes, 0)  # nothing changed: no git started, no folder walked again
    assert changed == (["feature/x", "made-meanwhile", "main", "zeta"], [*notes, "docs/deep/new.md"], 1)
    assert removed == (["feature/x", "made-meanwhile", "main"], ["docs/a.md", "docs/deep/c.md", "docs/deep/new.md"], 1)


async def test_a_detached_head_still_offers_the_branches(sourced, sourced_server, connect):
    git(sourced.project, "checkout", "-q", "--detach")
    elicitor = Elicitor().answer(branch={"branch": "main"})
    async with connect(sourced_server, elicitor) as client:
        text = await read(client, "guide://_checkout")
    assert text.strip() == "CHECKOUT main"
    assert elicitor.calls[0].schema["properties"]["branch"]["enum"] == ["feature/x", "main", "zeta"]


@pytest.mark.parametrize(
    ("setup", "says"),
    [
        ("empty", "source git-branches found no branch in the project's repository; make a first commit"),
        ("plain", "source git-branches cannot be read: the project folder is not a git repository"),
    ],
)
async def test_a_repository_that_cannot_give_branches_fails_in_one_line(empty_docroot, connect, setup, says):
    empty_docroot.write("_commands/checkout.md", CHECKOUT)
    if setup == "empty":
        make_repo(empty_docroot.project, commit=False)
    elicitor = Elicitor()
    async with connect(create_server(empty_docroot.root, project=empty_docroot.project, watch=False), elicitor) as client:
        asked = await read_error(client, "guide://_checkout")
        named = await read_error(client, "guide://_checkout/main")
    assert says in asked.error.message and "form pick: field branch" in asked.error.message
    assert says in named.error.message and named.error.message.startswith("invalid keyword branch: its choices cannot be read")
    for message in (asked.error.message, named.error.message):
        assert "\n" not in message and str(empty_docroot.project) not in message and "Traceback" not in message
    assert elicitor.calls == []


async def test_tags_and_lists_plain_and_titled(sourced_server, connect):
    elicitor = Elicitor().answer(tag={"tag": "v2.0", "env": "production", "regions": ["us", "eu"]})
    async with connect(sourced_server, elicitor) as client:
        text = await read(client, "guide://_release")
        wrong = await read_error(client, "guide://_release?tag=v1.0&env=prod")
        unknown_tag = await read_error(client, "guide://_release?tag=v3.0&env=staging")
    assert text.strip() == "RELEASE v2.0 production us eu"
    properties = elicitor.calls[0].schema["properties"]
    assert properties["tag"] == {"type": "string", "enum": ["v1.0", "v2.0"]}
    assert properties["env"] == {"type": "string", "enum": ["staging", "production"], "default": "staging"}  # the list's own order
    assert properties["regions"] == {"type": "array", "items": {"anyOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "United States"}]}}
    assert "invalid keyword env: prod is not one of the choices; it accepts one of: staging, production" in wrong.error.message
    assert "invalid keyword tag: v3.0 is not one of the choices; it accepts one of: v1.0, v2.0" in unknown_tag.error.message


async def test_files_offer_matching_regular_files_inside_the_project_only(sourced, sourced_server, connect, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("no\n", encoding="utf-8")
    os.symlink(outside / "secret.md", sourced.project / "docs" / "link.md")  # a link to a file outside
    os.symlink(outside, sourced.project / "docs" / "linked")  # a link to a folder outside
    elicitor = Elicitor().answer(notes={"notes": ["docs/deep/c.md"]})
    async with connect(sourced_server, elicitor) as client:
        text = await read(client, "guide://_open")
        through_link = await read_error(client, "guide://_open?notes=docs/linked/secret.md")
    assert text.strip() == "OPEN docs/deep/c.md"
    items = elicitor.calls[0].schema["properties"]["notes"]["items"]
    assert items == {"type": "string", "enum": ["docs/a.md", "docs/b.md", "docs/deep/c.md"]}
    assert "not among the choices" in through_link.error.message


async def test_an_answer_outside_the_choices_is_asked_again(sourced_server, connect, monkeypatch):
    monkeypatch.setattr("fastmcp.client.elicitation._validate_form_content", lambda content, schema: None)
    elicitor = Elicitor().answer(branch=[{"branch": "nope"}, {"branch": "zeta"}])
    async with connect(sourced_server, elicitor) as client:
        text = await read(client, "guide://_checkout")
    assert text.strip() == "CHECKOUT zeta"
    assert "nope is not one of the choices" in elicitor.calls[1].message


async def test_prompt_arguments_and_completion_offer_the_same_values(sourced, sourced_server, connect):
    async with connect(sourced_server) as client:
        offered = (await client.complete(PromptReference(name="checkout"), {"name": "branch", "value": ""})).values
        narrowed = (await client.complete(PromptReference(name="checkout"), {"name": "branch", "value": "fe"})).values
        text = await prompt_text(client, "checkout", {"branch": "zeta"})
        templates = {t.name: t.uri_template for t in await client.list_resource_templates()}
        notes = (await client.complete(ResourceTemplateReference(uri=templates["open"]), {"name": "notes", "value": "docs/d"})).values
        env = (await client.complete(ResourceTemplateReference(uri=templates["release"]), {"name": "env", "value": ""})).values
        (sourced.project / "docs" / "deep" / "d.md").write_text("x\n", encoding="utf-8")  # a file made now is offered at once
        later = (await client.complete(ResourceTemplateReference(uri=templates["open"]), {"name": "notes", "value": "docs/d"})).values
    assert list(offered) == ["feature/x", "main", "zeta"] and list(narrowed) == ["feature/x"]
    assert text.strip() == "CHECKOUT zeta"
    assert list(notes) == ["docs/deep/c.md"] and list(later) == ["docs/deep/c.md", "docs/deep/d.md"]
    assert list(env) == ["staging", "production"]


async def test_a_value_beyond_the_first_hundred_is_accepted_as_a_keyword(empty_docroot, connect):
    empty_docroot.write("_commands/checkout.md", CHECKOUT)
    make_repo(empty_docroot.project, branches=[f"b{n:04d}" for n in range(150)])
    elicitor = Elicitor().answer(branch={"branch": "b0001"})
    async with connect(create_server(empty_docroot.root, project=empty_docroot.project, watch=False), elicitor) as client:
        far = await read(client, "guide://_checkout/b0149")
        asked = await read(client, "guide://_checkout")
        refused = await read_error(client, "guide://_checkout/b0150")
    assert far.strip() == "CHECKOUT b0149" and asked.strip() == "CHECKOUT b0001"
    assert elicitor.calls[0].schema["properties"]["branch"]["enum"] == [f"b{n:04d}" for n in range(100)]  # capped, in order
    assert "b0150 is not one of the choices" in refused.error.message


async def _lags(until: asyncio.Event, lags: list[float]) -> None:
    """How late each 5 ms sleep of this event loop wakes, until `until` is set: how long something held the loop."""
    loop = asyncio.get_running_loop()
    while not until.is_set():
        began = loop.time()
        await asyncio.sleep(0.005)
        lags.append(loop.time() - began - 0.005)


async def _probed(work) -> tuple[object, float]:
    """`work()`'s result (or error) and the longest the event loop was held meanwhile."""
    done, lags = asyncio.Event(), []
    probe = asyncio.create_task(_lags(done, lags))
    try:
        result = await asyncio.wait_for(work(), timeout=60)
    except Exception as error:  # noqa: BLE001 - the error is what the caller inspects
        result = error
    done.set()
    await probe
    return result, max(lags, default=0.0)


async def test_a_git_that_never_answers_fails_within_the_time_limit_and_holds_no_loop_time(sourced, connect, monkeypatch, tmp_path):
    limit = 1.0
    pid_file = tmp_path / "git.pid"
    monkeypatch.setenv("PATH", path_with(hanging_git(tmp_path / "bin", pid_file)))
    monkeypatch.setattr("guide.project.sources.TIME_LIMIT", limit)
    async with connect(create_server(sourced.root, project=sourced.project, watch=False), Elicitor()) as client:
        _, quiet = await _probed(lambda: asyncio.sleep(0.5))  # the probe's own lag on this machine now
        began = time.monotonic()
        error, held = await _probed(lambda: client.read_resource("guide://_checkout"))
        took = time.monotonic() - began
    assert isinstance(error, MCPError)
    assert error.error.message == (
        "form pick: field branch: source git-branches cannot be read: git did not answer within the time limit (1 s); try again, or check the repository"
    )
    assert limit <= took < limit + 20  # it waited for git, and no longer than the limit and a generous margin
    assert held < quiet + limit / 2  # git was waited for in a worker thread: had it run on the loop, the loop was held for the whole limit
    assert _running_in_group(int(pid_file.read_text())) == []  # git and the sleep it started were killed, not left behind


def _running_in_group(group: int) -> list[int]:
    """The processes of a process group that still run (a killed child not yet reaped by init counts as gone)."""
    running = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and int(fields[2]) == group and fields[0] != "Z":
            running.append(int(entry.name))
    return running


async def test_reads_of_live_sources_start_a_bounded_number_of_git_processes_at_once(sourced, connect, monkeypatch, tmp_path):
    limit, at_once, reads = 0.5, 2, 6
    monkeypatch.setenv("PATH", path_with(hanging_git(tmp_path / "bin", tmp_path / "git.pid")))
    monkeypatch.setattr("guide.project.sources.TIME_LIMIT", limit)
    monkeypatch.setattr("guide.server.work.SOURCE_READS", at_once)
    async with connect(create_server(sourced.root, project=sourced.project, watch=False), Elicitor()) as client:
        began = time.monotonic()
        failed = await asyncio.gather(*(read_error(client, "guide://_checkout") for _ in range(reads)), return_exceptions=True)
        took = time.monotonic() - began
    assert all(isinstance(error, MCPError) and "git did not answer within the time limit" in error.error.message for error in failed)
    # Each git runs its whole limit; two at a time, six take three limits (all at once, they took one). Load only makes it longer.
    assert took >= (reads / at_once) * limit * 0.95


async def test_a_skill_with_a_source_is_unusable_and_says_which_choices_to_write(sourced, connect):
    # The seed: a skill's client receives the schema unchanged (skills do no command specialisation, issue 34).
    sourced.write(
        "_skills/triage/SKILL.md",
        """\
        ---
        name: triage
        description: Triage in one environment.
        elicitation:
          where:
            message: Which environment?
            schema:
              type: object
              properties:
                env: {type: string, source: "list:envs"}
              required: [env]
        ---
        TRIAGE {{kwargs.env}}
        """,
    )
    async with connect(create_server(sourced.root, project=sourced.project, watch=False), Elicitor()) as client:
        refused = await read_error(client, "guide://$triage")
    message = refused.error.message
    assert "`source: list:envs` is for commands only: a skill's client receives its schema unchanged" in message
    assert "write the choices as an `enum: [staging, production]`" in message


async def test_one_server_offers_the_branches_and_files_of_the_project_each_read_names(sourced, connect, tmp_path):
    under = tmp_path / "projects"
    a = make_repo(under / "a", branches=["only-in-a"])
    b = make_repo(under / "b", branches=["only-in-b"])
    (b / "docs").mkdir()
    (b / "docs" / "b.md").write_text("x\n", encoding="utf-8")
    server = create_server(sourced.root, project=sourced.project, projects_under=under, watch=False)
    elicitor = Elicitor().answer(branch={"branch": "only-in-b"})
    async with connect(server, elicitor) as client:
        in_a = await read(client, f"guide://_checkout/only-in-a?project={quote(str(a), safe='')}")
        refused = await read_error(client, f"guide://_checkout/only-in-b?project={quote(str(a), safe='')}")
        asked = await read(client, f"guide://_checkout?project={quote(str(b), safe='')}")
        own = await read(client, "guide://_checkout/zeta")
        notes = await read_error(client, f"guide://_open?project={quote(str(a), safe='')}")
        completed = await client.complete(PromptReference(name="checkout"), {"name": "branch", "value": ""}, context_arguments={"project": str(a)})
    assert list(completed.values) == ["main", "only-in-a"]
    assert in_a.strip() == "CHECKOUT only-in-a" and asked.strip() == "CHECKOUT only-in-b" and own.strip() == "CHECKOUT zeta"
    assert "only-in-b is not one of the choices; it accepts one of: main, only-in-a" in refused.error.message
    assert elicitor.calls[0].schema["properties"]["branch"]["enum"] == ["main", "only-in-b"]
    assert "source files:docs/**/*.md matches no file in the project" in notes.error.message and str(a) not in notes.error.message


SHIP = """\
    ---
    description: Ship a branch to the next phase.
    elicitation:
      ship:
        message: Which branch, to which phase?
        schema:
          type: object
          properties:
            branch: {type: string, source: git-branches}
            next: {type: string, source: workflow-phases}
          required: [branch, next]
    ---
    SHIP {{kwargs.branch}} TO {{kwargs.next}}
    """


async def test_one_server_asks_the_phase_and_the_branch_of_each_project_a_read_names(empty_docroot, connect, tmp_path):
    """C10 with C5: two projects under `--projects-under`, each its own repository and phase; one server asks each its own choices."""
    empty_docroot.write("guide.yaml", "workflow:\n  phases: [planning, building, review]\n")
    empty_docroot.write("_commands/ship.md", SHIP)
    under = tmp_path / "projects"
    first = make_repo(under / "first", branches=["first-fix"])
    second = make_repo(under / "second", branches=["second-fix"])
    (first / ".guide.yaml").write_text("phase: planning\n", encoding="utf-8")
    (second / ".guide.yaml").write_text("phase: review\n", encoding="utf-8")
    server = create_server(empty_docroot.root, project=empty_docroot.project, projects_under=under, watch=False)
    elicitor = Elicitor().answer(branch=[{"branch": "first-fix", "next": "building"}, {"branch": "second-fix", "next": "planning"}])
    async with connect(server, elicitor) as client:
        shipped_first = await read(client, f"guide://_ship?project={quote(str(first), safe='')}")
        shipped_second = await read(client, f"guide://_ship?project={quote(str(second), safe='')}")
        crossed = await read_error(client, f"guide://_ship?branch=second-fix&next=review&project={quote(str(first), safe='')}")
    assert (shipped_first.strip(), shipped_second.strip()) == ("SHIP first-fix TO building", "SHIP second-fix TO planning")
    asked_first, asked_second = (call.schema["properties"] for call in elicitor.calls)
    assert asked_first["branch"]["enum"] == ["first-fix", "main"] and asked_second["branch"]["enum"] == ["main", "second-fix"]
    assert asked_first["next"]["enum"] == ["building", "review"]  # the active phase of each project is not on offer
    assert asked_second["next"]["enum"] == ["planning", "building"]
    assert "second-fix is not one of the choices" in crossed.error.message
