"""C7.12 b in a real browser: Guide's MCP App form in Debian's Chromium, driven by Playwright, in both eras.

The host is a minimal page on the official MCP Apps host bridge (`AppBridge` of
`@modelcontextprotocol/ext-apps`, pinned in tests/e2e/apps-host), not the MCP
Inspector's web UI: the Inspector's Apps tab needs its own proxy server on fixed
ports, a session token and a sequence of clicks through its connection screen
before a tool can be called, which cannot be done reliably headless on a machine
shared by parallel test runs. The bridge is the same one hosts build on: it
renders the page in a sandboxed frame with the CSP the resource declares, hands
it the tool's input and result, and forwards its `tools/call` and `ui/message`.
The host's MCP client is the test's FastMCP Client (both eras), declaring the MCP
Apps extension and no forms, connected to a real Guide server: the page's tool
calls reach Guide as a host's would.

Screenshots of every step go to tests/artifacts/app-browser/ (ignored by git).
"""

import asyncio
import functools
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from fastmcp import Client, FastMCP
from mcp.client import advertise
from test_clients_doc import rows as clients_doc_rows

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, PAGE_URI

pytestmark = pytest.mark.slow

HOST_DIR = Path(__file__).parent / "apps-host"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "app-browser"
CHROMIUM = os.environ.get("GUIDE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
APPS = {"mimeTypes": ["text/html;profile=mcp-app"]}
PICK = """\
---
description: Pick the checks to run.
elicitation:
  pick:
    message: Pick the checks to run.
    schema:
      type: object
      properties:
        checks:
          type: array
          title: Checks
          items: {anyOf: [{const: lint, title: Lint the code}, {const: test, title: Run the tests}, {const: docs, title: Build the docs}]}
          minItems: 1
          maxItems: 2
          default: [test]
      required: [checks]
---
PICK {{#kwargs.checks}}[{{.}}]{{/kwargs.checks}}
"""


def _missing() -> str | None:
    """What is missing to run the browser test, said as what to install; None when all is there."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is missing: pip install -e '.[test]' (it brings playwright; never run `playwright install`)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"Chromium is missing at {CHROMIUM}: apt-get install chromium (or set GUIDE_CHROMIUM to a Chromium binary)"
    if not (HOST_DIR / "node_modules" / "@modelcontextprotocol" / "ext-apps").is_dir() or shutil.which("npm") is None:
        return f"the MCP Apps host bridge is missing: cd {HOST_DIR.relative_to(Path.cwd()) if HOST_DIR.is_relative_to(Path.cwd()) else HOST_DIR} && npm ci"
    return None


@pytest.fixture(scope="module")
def host_url():
    """The host page, served from tests/e2e/apps-host on a free loopback port (its script bundled from the pinned packages)."""
    missing = _missing()
    if missing:
        pytest.skip(missing)
    bundle = HOST_DIR / "dist" / "host.js"
    if not bundle.exists() or bundle.stat().st_mtime < (HOST_DIR / "host.js").stat().st_mtime:
        subprocess.run(["npm", "run", "--silent", "build"], cwd=HOST_DIR, check=True, timeout=120)
    handler = functools.partial(_QuietHandler, directory=str(HOST_DIR))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
async def browser():
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


class Host:
    """The host page in Chromium, with the test's MCP client behind it."""

    def __init__(self, page, client: Client, name: str, prefix: str = ""):
        self.page, self.client, self.name, self.prefix = page, client, name, prefix
        """`prefix`: what a gateway in front of Guide puts before its tool names (FastMCP's mount with a namespace)."""
        self.requests: list[str] = []
        self.shots = 0
        page.on("request", lambda request: self.requests.append(request.url))

    @property
    def app(self):
        return self.page.frame_locator("#app")

    async def open(self, uri: str) -> None:
        """What a host does when the model calls `open_form`: call it, read the page it names, render the page with the result."""
        tool = self.prefix + OPEN_TOOL
        result = await self.client.call_tool(tool, {"uri": uri})
        (page,) = [resource for resource in await self.client.list_resources() if str(resource.uri).endswith(PAGE_URI.split("://")[1])]
        html = (await self.client.read_resource(page.uri))[0].text
        opened = self.page.evaluate(
            "(args) => window.openApp(args)",
            {"html": html, "csp": page.meta["ui"]["csp"], "toolInput": {"uri": uri}, "toolResult": _wire(result), "toolName": tool},
        )
        await asyncio.wait_for(opened, 60)  # generous: only a page that never starts reaches it

    async def call_tool(self, name: str, arguments: dict) -> dict:
        """The page's `tools/call`, sent by the host's MCP client to Guide."""
        return _wire(await self.client.call_tool(name, arguments, raise_on_error=False))

    async def messages(self) -> list[str]:
        sent = await self.page.evaluate("() => window.hostMessages")
        return [block["text"] for message in sent for block in message["content"] if block["type"] == "text"]

    async def shot(self, step: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        await self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-{self.shots:02d}-{step}.png"), full_page=True)

    def fetched_elsewhere(self, origin: str) -> list[str]:
        return [url for url in self.requests if not url.startswith(origin) and not url.startswith(("about:", "data:"))]


def _wire(result) -> dict:
    """A CallToolResult as the host hands it to the page (the wire shape)."""
    return {
        "content": [{"type": "text", "text": item.text} for item in result.content if getattr(item, "type", "") == "text"],
        "structuredContent": result.structured_content,
        "isError": result.is_error,
    }


@pytest.fixture
async def host(docroot, browser, host_url, mode, request):
    docroot.write("_commands/pick.md", PICK)
    server = create_server(docroot.root, project=docroot.project, watch=False)
    async with Client(server, mode=mode, extensions=[advertise("io.modelcontextprotocol/ui", dict(APPS))]) as client:
        page = await browser.new_page(viewport={"width": 760, "height": 900})
        page.set_default_timeout(30_000)
        made = Host(page, client, f"{request.node.originalname}-{mode}")
        await page.expose_function("hostCallTool", made.call_tool)
        await page.goto(f"{host_url}/host.html")
        yield made
        await page.close()
    assert made.fetched_elsewhere(host_url) == [], "the App must load nothing from the network"


@pytest.fixture
async def gateway_host(docroot, browser, host_url, mode, request):
    """The host with a gateway between it and Guide: FastMCP's mount under the namespace `guide` lists `guide_open_form`."""
    front = FastMCP("gateway")
    front.mount(create_server(docroot.root, project=docroot.project, watch=False), namespace="guide")
    async with Client(front, mode=mode, extensions=[advertise("io.modelcontextprotocol/ui", dict(APPS))]) as client:
        page = await browser.new_page(viewport={"width": 760, "height": 900})
        page.set_default_timeout(30_000)
        made = Host(page, client, f"{request.node.originalname}-{mode}", prefix="guide_")
        await page.expose_function("hostCallTool", made.call_tool)
        await page.goto(f"{host_url}/host.html")
        yield made
        await page.close()


async def until(check, what: str, timeout: float = 20.0):
    """Wait until `check()` is true (polling; the bound is generous: only a broken flow reaches it)."""
    for _ in range(int(timeout / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


async def test_c7_12_branch_flow_in_chromium_renders_and_tells_the_conversation(host):
    await host.open("guide://_review")
    app = host.app
    await app.locator("#f-target-mode").wait_for()
    assert await app.locator("#f-target-mode option").all_inner_texts() == ["Choose…", "uncommitted", "branch", "pull-request"]
    await host.shot("select")
    await app.locator("#f-target-mode").select_option("branch")
    await app.get_by_role("button", name="Submit").click()
    await app.locator("#f-reference-reference").wait_for()  # the form `when: {mode: [branch, ...]}` opened, decided by Guide
    assert await app.locator("legend").all_inner_texts() == ["Enter the branch or pull request."]
    await host.shot("branch-opened")
    await app.locator("#f-reference-reference").fill("feat/x")
    await app.get_by_role("button", name="Submit").click()
    await app.locator("#rendered").wait_for()
    assert (await app.locator("#rendered").inner_text()).strip() == "REVIEW mode=branch reference=feat/x extra="
    await host.shot("rendered")
    await until(lambda: _said(host, "REVIEW mode=branch reference=feat/x extra="), "the rendered text in the conversation")
    assert clients_doc_rows()["apps-host"] == ("App form", "yes"), "docs/clients.md's apps-host row says what this test saw"


async def _said(host: Host, text: str) -> bool:
    return any(text in message for message in await host.messages())


async def test_c7_12_multi_select_with_titles_invalid_then_corrected_in_chromium(host):
    await host.open("guide://_pick")
    app = host.app
    await app.get_by_label("Run the tests").wait_for()
    assert await app.get_by_label("Run the tests").is_checked()  # the default, pre-filled
    assert not await app.get_by_label("Lint the code").is_checked()
    await app.get_by_label("Lint the code").check()
    await app.get_by_label("Build the docs").check()  # three: more than maxItems allows, which only Guide checks
    await host.shot("three-picked")
    await app.get_by_role("button", name="Submit").click()
    reason = app.locator(".reason")
    await reason.wait_for()
    said = await reason.inner_text()
    assert said.startswith("Not accepted: field checks: selects 3; at most 2 allowed"), said  # Guide's own words (C7.10)
    await host.shot("reason-shown")
    await app.get_by_label("Build the docs").uncheck()
    await app.get_by_role("button", name="Submit").click()
    await app.locator("#rendered").wait_for()
    assert (await app.locator("#rendered").inner_text()).strip() == "PICK [lint][test]"
    await host.shot("corrected")
    await until(lambda: _said(host, "PICK [lint][test]"), "the rendered text in the conversation")


async def test_c7_12_decline_in_chromium_ends_the_form_and_says_so(host):
    await host.open("guide://_review")
    app = host.app
    await app.locator("#f-target-mode").wait_for()
    await app.get_by_role("button", name="Decline").click()
    ended = app.locator("#ended")
    await ended.wait_for()
    assert "form target was declined" in await ended.inner_text()
    await host.shot("declined")
    await until(lambda: _said(host, "did not complete: form target was declined"), "the decline in the conversation")


async def test_c7_12_every_field_type_is_drawn_with_its_hints_and_defaults(host):
    await host.open("guide://_schema")
    app = host.app
    await app.locator("#f-everything-name").wait_for()
    name = app.locator("#f-everything-name")
    assert await name.input_value() == "ann"
    assert [await name.get_attribute(key) for key in ("minlength", "maxlength", "pattern", "required")] == ["1", "20", "[a-z]+", ""]
    hint = await app.locator('[data-name="name"] .hint').inner_text()
    assert hint.endswith("Accepts a string of 1 to 20 characters matching [a-z]+.")  # Guide's words, as an agent reads them
    types = {field: await app.locator(f"#f-everything-{field}").get_attribute("type") for field in ("email", "site", "day", "at", "count")}
    assert types == {"email": "email", "site": "url", "day": "date", "at": "datetime-local", "count": "number"}
    count = app.locator("#f-everything-count")
    assert [await count.input_value(), await count.get_attribute("min"), await count.get_attribute("max")] == ["2", "1", "9"]
    assert await app.locator("#f-everything-size option").all_inner_texts() == ["Choose…", "Small", "Large"]
    assert await app.locator("#f-everything-size").input_value() == "s"
    assert await app.locator("#f-everything-old option").all_inner_texts() == ["Choose…", "Alpha", "Beta"]
    assert await app.locator("#f-everything-ratio option").all_inner_texts() == ["Choose…", "0.25", "0.5"]
    assert await app.locator("#f-everything-ok").is_checked()
    assert await app.get_by_label("Pea").count() == 1 and await app.get_by_label("Queue").count() == 1
    assert await app.get_by_label("x", exact=True).is_checked()
    await host.shot("every-field")
    await app.locator("#f-everything-name").fill("bob")
    await app.get_by_role("button", name="Submit").click()
    await app.locator("#rendered").wait_for()
    assert (await app.locator("#rendered").inner_text()).strip() == "SCHEMA name=bob tags=x count=2"


async def test_c7_12_behind_a_gateway_that_renames_the_tools_the_page_submits_to_the_name_the_host_lists(gateway_host):
    """Issue 36: the page takes the submit tool's name from the tool that opened it, as the host lists it (`guide_submit_form`)."""
    await gateway_host.open("guide://_review")
    app = gateway_host.app
    await app.locator("#f-target-mode").wait_for()
    await app.locator("#f-target-mode").select_option("uncommitted")
    await app.get_by_role("button", name="Submit").click()
    await app.locator("#rendered").wait_for()
    assert (await app.locator("#rendered").inner_text()).strip() == "REVIEW mode=uncommitted reference= extra="
    await gateway_host.shot("rendered")
