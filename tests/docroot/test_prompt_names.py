"""Issue 21 item 5 (C3): two commands whose prompt names collide are an authoring error naming both files.

`_commands/a.b.md` and `_commands/a/b.md` would both be prompt `a.b`. While the
error stands neither is offered as that prompt (it is not listed and getting it
is "not found"), so the prompt never silently means one of them; both are still
read by address and through the `guide` prompt's routes. A command named `guide`
has no prompt of its own: a note.
"""

import os

import pytest
from fastmcp import Client
from mcp import MCPError
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.server.app import create_server

os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")

FILES = {
    "_commands/a.b.md": "---\ndescription: Dotted.\n---\nDOTTED\n",
    "_commands/a/b.md": "---\ndescription: Nested.\n---\nNESTED\n",
    "_commands/a/b/c.md": "C1\n",
    "_commands/a.b/c.md": "C2\n",
    "_commands/a/b.c.md": "C3\n",
    "_commands/solo.md": "---\ndescription: Alone.\n---\nSOLO\n",
}


def test_21_5_colliding_prompt_names_are_an_error_naming_both_files(tmp_path):
    report = lint(Docroot(write_files(tmp_path, FILES)).build())
    messages = {problem.path: problem.message for problem in report.problems}
    assert messages == {
        "_commands/a/b.md": "commands 'a.b' (_commands/a.b.md) and 'a/b' both become prompt 'a.b'; neither is offered as a prompt until one is renamed (both still read by address)",
        "_commands/a/b.c.md": "commands 'a.b/c' (_commands/a.b/c.md) and 'a/b.c' both become prompt 'a.b.c'; neither is offered as a prompt until one is renamed (both still read by address)",
        "_commands/a/b/c.md": "commands 'a.b/c' (_commands/a.b/c.md) and 'a/b/c' both become prompt 'a.b.c'; neither is offered as a prompt until one is renamed (both still read by address)",
    }


def test_21_5_check_fails_on_the_collision_and_passes_once_renamed(tmp_path, capsys):
    root = write_files(tmp_path, {"_commands/a.b.md": FILES["_commands/a.b.md"], "_commands/a/b.md": FILES["_commands/a/b.md"]})
    assert main(["check", str(root)]) == 1
    assert "_commands/a/b.md: commands 'a.b' (_commands/a.b.md) and 'a/b' both become prompt 'a.b'" in capsys.readouterr().out
    (root / "_commands/a.b.md").rename(root / "_commands/a-b.md")
    assert main(["check", str(root), "--strict"]) == 0, capsys.readouterr().out


def test_21_5_a_command_named_guide_is_a_note(tmp_path, capsys):
    root = write_files(tmp_path, {"_commands/guide.md": "---\ndescription: d\n---\nG\n"})
    assert main(["check", str(root)]) == 0
    out = capsys.readouterr().out
    assert "note: _commands/guide.md: command 'guide' gets no prompt of its own: prompt `guide` runs commands by route; use `_guide` there" in out
    assert main(["check", str(root), "--strict"]) == 1


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_21_5_the_server_offers_no_colliding_prompt(tmp_path, mode):
    root = write_files(tmp_path / "docroot", FILES)
    async with Client(create_server(root, tmp_path, watch=False), mode=mode) as client:
        names = sorted(prompt.name for prompt in await client.list_prompts())
        assert names == ["guide", "solo"]
        for shared in ("a.b", "a.b.c"):
            with pytest.raises(MCPError):
                await client.get_prompt(shared)
        assert (await client.get_prompt("solo")).messages[0].content.text.strip() == "SOLO"
        assert (await client.read_resource("guide://_a.b"))[0].text == "DOTTED\n"
        assert (await client.read_resource("guide://_a/b"))[0].text == "NESTED\n"
        routed = await client.get_prompt("guide", {"command": "_a.b"})
        assert routed.messages[0].content.text.strip() == "DOTTED"
