"""Issue 33, finding 2: a project's branch names reach a form only within a source's bounds, whatever their length.

100 branch names of 200 KB in `packed-refs` (git accepts them) had made a 19.6 MB
elicitation request, a 19.6 MB one-line error and log line, and a server at 615
MiB. A real `guide serve --transport http` now serves two projects under
`--projects-under`: `mixed` (three ordinary branches and 97 huge ones) and
`huge` (only the 100 huge ones). Each channel gets the same bounded choices (a
native form in both eras, the agent's questions, the App form's tool), the huge
project is refused in one line, every log line stays short and the server small.
"""

import json

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError
from support.eras import MODES
from support.gitrepo import git, make_repo
from support.servers import guide_http, without

from guide.forms.sources import MAX_CHOICE_LENGTH
from guide.server.errors import UNEXPECTED
from robustness.capped import CEILING, peak
from robustness.hostile import write

HUGE = 200_000
SMALL = 64 * 1024
"""The most bytes a request, result or error about these choices may take here (before: 19.6 MB)."""
PEAK = 400 * 1024 * 1024
"""The server's peak resident memory after every read (before: 615 MiB)."""
CHECKOUT = """\
---
description: Check out a branch.
elicitation:
  pick:
    message: Which branch?
    schema:
      type: object
      properties:
        branch: {type: string, source: git-branches}
      required: [branch]
---
CHECKOUT {{kwargs.branch}}
"""


def huge_repo(path, ordinary: list[str], huge: int):
    """A repository with `ordinary` branches and `huge` branches of `HUGE` characters each, written into `packed-refs`."""
    repo = make_repo(path)
    head = git(repo, "rev-parse", "HEAD").strip()
    names = sorted([*ordinary, *(f"z{n:03}-" + "n" * HUGE for n in range(huge))])
    (repo / ".git" / "packed-refs").write_text("".join(f"{head} refs/heads/{name}\n" for name in names), encoding="utf-8")
    return repo


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("huge-refs")
    write(base / "docroot/_commands/checkout.md", CHECKOUT)
    mixed = huge_repo(base / "projects/mixed", ["feature-a", "fix-b"], 97)  # with main: 100 names, what git is asked for
    only_huge = huge_repo(base / "projects/huge", [], 100)
    git(only_huge, "branch", "-q", "-m", "main", "z")  # "z" sorts before the huge names' "z000-": still ordinary
    git(only_huge, "update-ref", "-d", "refs/heads/z")
    env = without(lambda key: key == "GUIDE_STATE_KEYS", FASTMCP_LOG_LEVEL="INFO", GUIDE_NO_CACHE="1")
    log = base / "server.log"
    with guide_http(base / "docroot", base / "projects", log, "--projects-under", str(base / "projects"), address_space=CEILING,
                    env=env) as (url, _, process):
        yield url, process, log, mixed, only_huge


def _uri(project) -> str:
    return f"guide://_checkout?project={project}"


@pytest.mark.parametrize("mode", MODES)
async def test_33_2_a_native_form_offers_only_the_names_within_the_bounds(served, mode):
    url, process, _, mixed, _ = served
    asked = []

    async def answer(message, response_type, params, context):
        asked.append(params.model_dump_json(by_alias=True))
        return {"branch": "main"}

    async with Client(url, mode=mode, elicitation_handler=answer) as client:
        assert (await client.read_resource(_uri(mixed)))[0].text == "CHECKOUT main\n"
    [request] = asked
    assert len(request.encode()) < SMALL, f"the form's request took {len(request):,} characters"
    assert json.loads(request)["requestedSchema"]["properties"]["branch"]["enum"] == ["feature-a", "fix-b", "main"]


@pytest.mark.parametrize("mode", MODES)
async def test_33_2_the_agent_s_questions_and_the_app_form_offer_the_same_bounded_names(served, mode):
    url, _, _, mixed, _ = served
    async with Client(url, mode=mode) as client:  # no forms declared: the agent channel
        with pytest.raises(MCPError) as raised:
            await client.read_resource(_uri(mixed))
        text = raised.value.error.message + json.dumps(raised.value.error.data)
        opened = await client.call_tool("open_form", {"uri": _uri(mixed)})
    assert len(text.encode()) < SMALL and "feature-a" in text and "n" * MAX_CHOICE_LENGTH not in text
    [form] = opened.structured_content["forms"]
    assert form["schema"]["properties"]["branch"]["enum"] == ["feature-a", "fix-b", "main"]
    assert len(json.dumps(opened.structured_content)) < SMALL


@pytest.mark.parametrize("mode", MODES)
async def test_33_2_a_project_of_only_huge_names_is_refused_in_one_short_line(served, mode):
    url, process, log, _, only_huge = served

    async def never(message, response_type, params, context):
        return ElicitResult(action="decline")

    async with Client(url, mode=mode, elicitation_handler=never) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(_uri(only_huge))
    message = raised.value.error.message
    assert message != UNEXPECTED and "\n" not in message and len(message) < 500
    assert "source git-branches has no value Guide can offer: it left out 100 values longer than 1,024 characters" in message
    assert process.poll() is None
    lines = log.read_text(errors="replace").splitlines()
    assert any("left out 100 values longer than" in line for line in lines)
    assert max(map(len, lines)) < 4000
    assert peak(process) < PEAK, f"the server peaked at {peak(process) >> 20} MiB"
