"""The project of a read (C10 turn 4) over real transports: `guide serve` on stdio and on HTTP, with and without `--projects-under`.

Over HTTP the caller is not the operator: the keyword is refused unless the
server was started with the setting, and then reaches only folders inside it.
"""

import os
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from e2e_docroot import write_base_docroot
from e2e_support import read, read_error
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from http_served import http_server

REFUSED = "is not a folder inside the projects this server serves"


def lay_out(base: Path) -> tuple[Path, Path, Path]:
    """A docroot, its own project (discussion), and projects/a (planning), projects/b (review), elsewhere (implementation)."""
    docroot, own = base / "docroot", base / "own"
    write_base_docroot(docroot)
    for folder, phase in ((own, "discussion"), (base / "projects" / "a", "planning"), (base / "projects" / "b", "review"),
                          (base / "elsewhere", "implementation")):
        folder.mkdir(parents=True)
        (folder / ".guide.yaml").write_text(f"phase: {phase}\n", encoding="utf-8")
    (base / "projects" / "out").symlink_to(base / "elsewhere")
    return docroot, own, base / "projects"


def at(path: Path | str) -> str:
    return f"guide://_workflow/phase/check?project={quote(str(path), safe='')}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Two `guide serve --transport http` processes over one docroot: one with `--projects-under`, one without."""
    base = tmp_path_factory.mktemp("projects-http")
    docroot, own, under = lay_out(base)
    with http_server(docroot, own, base / "with.log", "--projects-under", str(under)) as many, \
            http_server(docroot, own, base / "without.log") as one:
        yield many.url, one.url, base


async def test_over_http_the_keyword_names_a_project_inside_only(served, connect):
    url, _, base = served
    async with connect(url) as client:
        assert (await read(client, at(base / "projects" / "a"))).strip() == "PHASE from=planning to=check"
        assert (await read(client, at(base / "projects" / "b"))).strip() == "PHASE from=review to=check"
        assert (await read(client, "guide://_workflow/phase/check")).strip() == "PHASE from=discussion to=check"
        refused = [await read_error(client, at(path)) for path in (base / "elsewhere", base / "projects" / "out")]
        climbing = await read_error(client, at(f"{base}/projects/a/../../elsewhere"))
        encoded = await read_error(client, f"guide://_workflow/phase/check?project={base}/projects%252F..%252Felsewhere")
    for error in refused:
        assert REFUSED in error.error.message and "implementation" not in error.error.message
        assert str(base / "projects") + "'" not in error.error.message  # the folder the operator chose is not shown
    assert "has a . or .. segment" in climbing.error.message
    assert "percent-encoded separator or dot" in encoded.error.message


async def test_over_http_a_legacy_clients_root_names_the_project(served, mode):
    url, _, base = served
    async with Client(url, mode=mode, roots=[f"file://{base}/projects/b"]) as client:
        text = await read(client, "guide://_workflow/phase/check")
    assert text.strip() == ("PHASE from=review to=check" if mode == "legacy" else "PHASE from=discussion to=check")


async def test_over_http_the_keyword_is_refused_without_the_setting(served, connect):
    _, url, base = served
    async with connect(url) as client:
        error = await read_error(client, at(base / "projects" / "a"))
        assert (await read(client, "guide://_workflow/phase/check")).strip() == "PHASE from=discussion to=check"
    assert error.error.message.startswith("the keyword project names the project of a read only when the server is started with --projects-under")


@pytest.mark.slow  # a process per era
async def test_over_stdio_one_server_answers_two_projects(tmp_path, connect):
    docroot, own, under = lay_out(tmp_path)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GUIDE_")}, "FASTMCP_LOG_LEVEL": "CRITICAL", "GUIDE_PROJECTS_UNDER": str(under)}
    args = ["-m", "guide", "serve", "--docroot", str(docroot), "--project", str(own)]
    async with connect(StdioTransport(command=sys.executable, args=args, env=env, cwd=str(own))) as client:
        assert (await read(client, at(under / "a"))).strip() == "PHASE from=planning to=check"
        assert (await read(client, at(under / "b"))).strip() == "PHASE from=review to=check"
        assert REFUSED in (await read_error(client, at(tmp_path / "elsewhere"))).error.message
