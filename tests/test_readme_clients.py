"""Issue 29 item 2: the README's "Connecting a client" works as written, for every client, over stdio and HTTP with a token.

Each JSON snippet parses and names only flags `guide serve --help` lists; each
HTTP snippet's URL and header, with its placeholder filled in the way its client
fills it, reads from a real `guide serve --transport http` that checks tokens;
the Inspector CLI lines run as pasted (with the Inspector from tests/e2e/inspector).
The stdio snippets are started for real in tests/cli/test_serve_command.py.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from e2e.inspector_support import LAUNCHER, NODE, missing
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp import MCPError
from support.servers import ALICE_TOKEN, example_http

from guide.examples import DOCROOT

REPO = Path(__file__).resolve().parents[1]
URL = "https://guide.example.com/mcp"
CLIENTS = ("Claude Code", "VS Code", "Cursor", "Claude Desktop", "MCP Inspector")
TOKEN_PLACEHOLDERS = ("${TEAM_GUIDE_TOKEN}", "${input:guide-token}", "${env:TEAM_GUIDE_TOKEN}", "$TEAM_GUIDE_TOKEN", "your-token")
INSPECTOR = "npx @modelcontextprotocol/inspector"


def section() -> str:
    """The README's "Connecting a client" section."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return text.split("## Connecting a client\n", 1)[1].split("\n## ", 1)[0]


def by_client() -> dict[str, str]:
    """The part of the section about each client, from its bold name to the next."""
    parts = re.split(r"^\*\*([^*]+)\*\*", section(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def entries(text: str) -> list[dict]:
    """The `guide` server entry of every JSON snippet in `text` (fenced blocks and inline code alike)."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        config = json.loads(block)
        found.append((config.get("mcpServers") or config["servers"])["guide"])
    found += [json.loads(inline) for inline in re.findall(r"`(\{\"command\".*?\})`", text)]
    return found


def shell_lines(text: str) -> list[str]:
    """Each command of the `sh` blocks, and each inline `claude mcp add` command."""
    lines = [line for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines() if line.strip()]
    return lines + re.findall(r"`(claude mcp add [^`]+)`", text)


def serve_flags() -> set[str]:
    """The options `guide serve --help` lists."""
    done = subprocess.run([sys.executable, "-m", "guide", "serve", "--help"], capture_output=True, text=True, timeout=60, check=True)
    return set(re.findall(r"^\s+(--[a-z-]+)", done.stdout, re.M))


def check_serve_args(words: list[str], flags: set[str]) -> None:
    """A command line (program first) that runs `guide serve` with real flags, each with a value."""
    start = next((index for index in range(len(words) - 1) if Path(words[index]).name == "guide" and words[index + 1] == "serve"), None)
    assert start is not None, f"no `guide serve` in {words}"
    tail = words[start + 2 :]
    for index, word in enumerate(tail):
        if word.startswith("--"):
            assert word in flags, f"{word} is not a flag of guide serve ({words})"
            assert index + 1 < len(tail) and not tail[index + 1].startswith("--"), f"{word} has no value ({words})"


def words_of(snippet: dict) -> list[str]:
    """A snippet's command line: a shell line split as the shell does, or a JSON entry's command then args."""
    return shlex.split(snippet["line"]) if "line" in snippet else [snippet.get("command", ""), *snippet.get("args", [])]


def http_headers(entry: dict) -> dict[str, str]:
    """The header an HTTP snippet makes its client send, as the client reads it (mcp-remote: `Name:Value`, `${VAR}` from env)."""
    if "url" in entry:
        assert entry["url"] == URL
        return entry["headers"]
    args = entry["args"]
    assert entry["command"] == "npx" and "mcp-remote" in args and URL in args, args
    name, _, value = args[args.index("--header") + 1].partition(":")
    return {name: re.sub(r"\$\{(\w+)\}", lambda match: entry["env"][match.group(1)], value).strip()}


def filled(text: str, token: str) -> str:
    """A snippet's token placeholder replaced with `token`."""
    for placeholder in TOKEN_PLACEHOLDERS:
        text = text.replace(placeholder, token)
    return text


def test_every_client_has_a_stdio_and_an_http_snippet_naming_real_flags():
    flags = serve_flags()
    parts = by_client()
    assert set(CLIENTS) <= {name.split(" (")[0] for name in parts}, sorted(parts)
    for name, text in parts.items():
        snippets = entries(text) + [{"line": line} for line in shell_lines(text)]
        http = [snippet for snippet in snippets if URL in json.dumps(snippet)]
        stdio = [snippet for snippet in snippets if snippet not in http and "serve" in words_of(snippet)]
        assert stdio and http, f"{name}: stdio {stdio}, HTTP {http}"
        for snippet in stdio:
            check_serve_args(words_of(snippet), flags)
        for snippet in http:
            if "line" not in snippet:
                assert http_headers(snippet)["Authorization"].startswith("Bearer ")


def test_the_one_liners_run_guide_through_uvx_and_pipx_with_real_flags():
    flags = serve_flags()
    lines = shell_lines(section().split("**Claude Code**")[0])
    assert [line.split(" guide serve")[0] for line in lines] == ["uvx --from guide-mcp", "pipx run --spec guide-mcp"]
    for line in lines:
        check_serve_args(shlex.split(line), flags)
    (inline,) = entries(section().split("**Claude Code**")[0])
    assert inline["command"] == "uvx" and inline["args"][:3] == ["--from", "guide-mcp", "guide"]
    check_serve_args(words_of(inline), flags)


def test_the_claude_code_http_command_sends_the_token_header():
    (line,) = [line for line in shell_lines(by_client()["Claude Code"]) if "--transport http" in line]
    words = shlex.split(line)
    assert words[:6] == ["claude", "mcp", "add", "--transport", "http", "guide"] and words[6] == URL
    assert words[words.index("--header") + 1] == "Authorization: Bearer $TEAM_GUIDE_TOKEN"


async def test_each_http_snippet_reads_from_a_server_that_checks_tokens(tmp_path):
    snippets = [entry for entry in entries(section()) if URL in json.dumps(entry)]
    assert len(snippets) == 4  # Claude Code, VS Code, Cursor, Claude Desktop through mcp-remote
    with example_http(tmp_path, {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN}"}) as url:
        for snippet in snippets:
            headers = {name: filled(value, ALICE_TOKEN) for name, value in http_headers(snippet).items()}
            async with Client(StreamableHttpTransport(url, headers=headers)) as client:
                assert "# Guide help" in (await client.read_resource("guide://_help"))[0].text, snippet
            with pytest.raises(MCPError):  # the snippet as written, its placeholder not filled in: refused (the client reports the 401 so)
                async with Client(StreamableHttpTransport(url, headers=http_headers(snippet))) as client:
                    await client.read_resource("guide://_help")


@pytest.mark.skipif(missing() is not None, reason=missing() or "")
def test_the_inspector_lines_run_as_pasted(tmp_path):
    lines = [line for line in shell_lines(by_client()["MCP Inspector"]) if line.startswith(INSPECTOR)]
    assert len(lines) == 3
    inspector = f"{shlex.quote(str(NODE))} {shlex.quote(str(LAUNCHER))}"
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json"), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GUIDE_STATE_KEYS", None)

    def pasted(line: str, **more: str) -> subprocess.CompletedProcess:
        command = line.replace(INSPECTOR, inspector, 1).replace("/path/to/docroot", shlex.quote(str(DOCROOT)))
        return subprocess.run(["bash", "-c", command], cwd=tmp_path, env={**env, **more}, capture_output=True, text=True, timeout=120)

    stdio, http, skills = lines
    done = pasted(stdio)
    assert done.returncode == 0 and "guide://_review" in done.stdout, done.stdout + done.stderr
    verified = pasted(skills)  # issue 36: the Skills extension is 2026-07-28's; the line says so, and passes
    reports = [json.loads(line) for line in verified.stdout.splitlines() if line.startswith("{")]
    assert verified.returncode == 0 and [report["name"] for report in reports] == ["workflow-review"], verified.stdout + verified.stderr
    assert all(report["ok"] for report in reports), reports
    unsaid = pasted(skills.replace(" --protocol-era modern", ""))  # what the README warns of: the CLI's own era has no skills/list
    assert unsaid.returncode == 1 and "skills_unsupported" in unsaid.stdout + unsaid.stderr, unsaid.stdout + unsaid.stderr
    with example_http(tmp_path / "server", {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN}"}) as url:
        done = pasted(http.replace(URL, url), TEAM_GUIDE_TOKEN=ALICE_TOKEN)
        refused = pasted(http.replace(URL, url), TEAM_GUIDE_TOKEN="not-the-token")
    assert done.returncode == 0 and "guide://_review" in done.stdout, done.stdout + done.stderr
    assert refused.returncode != 0
