"""Starting Guide: `guide serve` and fastmcp.json (`fastmcp inspect/run`) check the docroot the same way."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from guide.cli import main

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60


def fastmcp(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run the `fastmcp` command line from this checkout, as the README shows it."""
    script = Path(sys.executable).parent / "fastmcp"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "fastmcp.cli"]
    environment = {**os.environ, **env}
    environment.pop("GUIDE_STATE_KEYS", None)
    return subprocess.run([*command, *args], cwd=REPO, env=environment, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_serve_refuses_a_docroot_that_is_not_a_folder(tmp_path, capsys):
    assert main(["serve", "--docroot", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"guide serve: --docroot: '{tmp_path / 'missing'}' is not a folder\n"


@pytest.mark.parametrize("verb", ["inspect", "run"])
def test_fastmcp_json_with_a_missing_docroot_fails_with_one_line_naming_the_variable(tmp_path, verb):
    done = fastmcp(verb, "fastmcp.json", env={"GUIDE_DOCROOT": str(tmp_path / "missing")})
    assert done.returncode == 2
    assert done.stderr == f"guide: GUIDE_DOCROOT: '{tmp_path / 'missing'}' is not a folder\n"
    assert done.stdout == ""


def test_fastmcp_json_serves_the_docroot_named_by_guide_docroot(tmp_path, capsys):
    assert main(["init", str(tmp_path / "docroot")]) == 0
    capsys.readouterr()
    done = fastmcp("inspect", "fastmcp.json", "--format", "mcp", env={"GUIDE_DOCROOT": str(tmp_path / "docroot"), "GUIDE_PROJECT": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["serverInfo"]["name"] == "guide"
    assert sorted(prompt["name"] for prompt in report["prompts"]) == ["change", "guide"]
    assert "guide://conventions" in [resource["uri"] for resource in report["resources"]]


def client_snippets() -> list[tuple[str, list[str]]]:
    """(command, args) of every client configuration the README shows under "Connecting a client" that starts `guide` itself (stdio).

    The HTTP configurations and the `uvx`/`pipx` ones are checked in tests/test_readme_clients.py.
    """
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Connecting a client", 1)[1].split("\n## ", 1)[0]
    found = []
    for block in re.findall(r"```json\n(.*?)```", section, re.S):
        config = json.loads(block)
        entry = (config.get("mcpServers") or config["servers"])["guide"]
        if Path(entry.get("command", "")).name == "guide":
            found.append((entry["command"], entry["args"]))
    for line in re.findall(r"`claude mcp add guide -- ([^`]+)`", section):
        command, *args = shlex.split(line)
        found.append((command, args))
    return found


async def test_every_readme_client_snippet_starts_guide_with_only_its_placeholders_filled(tmp_path, capsys):
    installed = Path(sys.executable).parent / "guide"  # where the install puts `guide` (pipx: ~/.local/bin; a venv: .venv/bin)
    assert main(["init", str(tmp_path / "docroot")]) == 0
    capsys.readouterr()
    snippets = client_snippets()
    assert len(snippets) == 5
    assert {command for command, _ in snippets} == {"guide", "/full/path/to/bin/guide"}
    filled = {(str(installed), tuple(str(tmp_path / "docroot") if arg == "/path/to/docroot" else arg for arg in args)) for _, args in snippets}
    assert len(filled) == 1  # every client starts the same command line
    command, args = filled.pop()
    elsewhere = tmp_path / "client-working-folder"
    elsewhere.mkdir()
    # A client passes only a few variables of its own; the parse cache of this test run is added so none lands in ~/.cache.
    cache = {"GUIDE_CACHE_DIR": os.environ["GUIDE_CACHE_DIR"]}
    transport = StdioTransport(command=command, args=list(args), env=cache, cwd=str(elsewhere), keep_alive=False, log_file=tmp_path / "server.log")
    async with Client(transport) as client:
        help_text = (await client.read_resource("guide://_help"))[0].text
        prompts = sorted(prompt.name for prompt in await client.list_prompts())
    assert "guide://_change" in help_text and "guide://$handover" in help_text
    assert prompts == ["change", "guide"]


def test_serve_logs_one_start_line_with_counts_and_authoring_errors(tmp_path):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "typo.md").write_text("---\nelicitaton: {}\n---\nx\n")
    (tmp_path / "_commands" / "fine.md").write_text("fine\n")
    (tmp_path / "notes.md").write_text("notes\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "guide", "serve", "--docroot", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        lines = []
        for line in process.stderr:  # ends at the first line naming the docroot, or when the process exits
            lines.append(line)
            if "serving" in line:
                break
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)
    [start] = [line for line in lines if "serving" in line]
    assert f"serving {tmp_path}: 2 commands, 0 skills, 0 partials, 1 document; 1 authoring error (`guide check {tmp_path}` lists them)" in start


def test_serve_log_level_hides_info(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "guide", "serve", "--docroot", str(tmp_path), "--log-level", "warning"],
        input="", capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert "serving" not in done.stderr and "INFO" not in done.stderr


def test_a_piped_log_keeps_each_record_on_one_line():
    value = "sideways-" + "and-a-much-longer-value-" * 4
    requests = "".join(json.dumps(message) + "\n" for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": f"guide://_review?mode={value}"}},
    ))
    process = subprocess.Popen([sys.executable, "-m", "guide", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdin.write(requests)
    process.stdin.flush()
    for line in process.stdout:  # the read is answered before the input ends
        if json.loads(line).get("id") == 2:
            break
    process.stdin.close()
    stderr = process.stderr.read()
    process.wait(timeout=TIMEOUT)
    lines = [line for line in stderr.splitlines() if "Error reading resource" in line]
    assert len(lines) == 1, stderr
    assert lines[0].endswith(f"invalid keyword mode: {value[:40]}... is not one of the choices; it accepts one of: uncommitted, branch, pull-request")
