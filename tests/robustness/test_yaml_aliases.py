"""Issue 25 findings 2 and 4: YAML aliases are bounded by what they expand to, and the store never keeps more than its cap.

One anchored 50 KB string used 10,000 times is a 110 KB command that stands for
500 MB of text; `guide check` wrote 477 MiB into the store and peaked at 1.5 GB,
and 5,000 uses of a 100 KB flag in `guide.yaml` took 985 MiB. Each process here
runs under an address-space ceiling, so a regression fails instead of taking
the machine down.
"""

import json
import logging

import pytest
from fastmcp import Client
from mcp import MCPError
from support.eras import MODES
from support.files import write_files

from guide.docroot import yaml_loader
from guide.docroot.folder import Docroot
from guide.docroot.store import disk, parses
from guide.docroot.store.disk import Store
from robustness.served import until
from robustness.under_ceiling import guide, http_server

BIG, USES = 50_000, 10_000
CROSSING_LINE = 5 + (yaml_loader.MAX_EXPANDED // BIG - 1)
"""The file line of the first `*a` that takes the command past the bound (the anchor itself counts once)."""
BOMB = "---\ndescription: bomb\nbig: &a \"" + "x" * BIG + "\"\nmany:\n" + "  - *a\n" * USES + "---\nBOMB\n"
FLAG_BIG, FLAG_USES = 100_000, 5_000
FLAG_CROSSING_LINE = 4 + (yaml_loader.MAX_EXPANDED // FLAG_BIG)
CONFIG_BOMB = "flags:\n  team: core\n  seed: &b \"" + "y" * FLAG_BIG + "\"\n  big:\n" + "    - *b\n" * FLAG_USES
HEALTHY = {
    "_commands/ok.md": "---\ndescription: a healthy command\n---\nOK\n",
    "_commands/flags.md": "---\ndescription: shows a flag\n---\nFLAGS [{{flags.big}}] TEAM [{{flags.team}}]\n",
    "lang/python.md": "PYTHON\n",
}
COMMAND_MESSAGE = (f"_commands/bomb.md:{CROSSING_LINE}: frontmatter aliases expand to more than 1,048,576 characters here"
                   " (`*a` repeats 50,000 each time); use fewer aliases of long values or write the values out")
CONFIG_MESSAGE = (f"guide.yaml:{FLAG_CROSSING_LINE}: guide.yaml aliases expand to more than 1,048,576 characters here"
                  " (`*b` repeats 100,000 each time); use fewer aliases of long values or write the values out;"
                  " the default settings apply (no flags, no workflow)")


def _kept_sizes(cache) -> dict[str, int]:
    return {path.relative_to(cache).as_posix(): path.stat().st_size for path in cache.rglob("*") if path.is_file()}


# ---------------------------------------------------------------- guide check names the alias, within a memory ceiling


@pytest.mark.parametrize(("files", "message"), [({"_commands/bomb.md": BOMB}, COMMAND_MESSAGE), ({"guide.yaml": CONFIG_BOMB}, CONFIG_MESSAGE)],
                         ids=["command", "guide.yaml"])
def test_guide_check_names_the_alias_that_expands_too_far_and_stays_small(tmp_path, files, message):
    root = write_files(tmp_path / "docroot", {**HEALTHY, **files})
    cache = tmp_path / "cache"
    done = guide("check", str(root), cache=cache)
    assert (done.returncode, done.stderr) == (1, ""), done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == message
    assert done.stdout.splitlines()[-1].startswith("1 error;"), done.stdout
    assert all(size < 64 * 1024 for size in _kept_sizes(cache).values()), _kept_sizes(cache)


def test_aliases_within_the_bound_are_read_as_written(tmp_path):
    uses = yaml_loader.MAX_EXPANDED // BIG - 2  # the anchor, its uses and the keys stay under the bound
    text = "---\ndescription: fine\nbig: &a \"" + "x" * BIG + "\"\nmany:\n" + "  - *a\n" * uses + "---\nFINE\n"
    root = write_files(tmp_path / "docroot", {**HEALTHY, "_commands/fine.md": text})
    built = Docroot(root, store=Store(None)).build()
    entrypoint = built.entrypoint("command", "fine")
    assert not built.problems(entrypoint)
    assert entrypoint.meta["many"] == ["x" * BIG] * uses


# ---------------------------------------------------------------- the store never writes past its cap


def _listed(root, cache) -> Docroot:
    docroot = Docroot(root, store=Store(cache))
    built = docroot.build()
    for name in built.snapshot.layout.commands:
        built.problems(built.entrypoint("command", name))
    return docroot


def test_kept_parses_over_the_store_cap_are_not_written(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(disk, "MAX_STORED_BYTES", 8 * 1024)  # the real cap (256 MiB) scaled down to a test docroot
    files = {f"_commands/c{index}.md": f"---\ndescription: {'d' * 500}\n---\nC{index}\n" for index in range(40)}
    root = write_files(tmp_path / "docroot", files)
    cache = tmp_path / "cache"
    with caplog.at_level(logging.INFO, logger="guide"):
        _listed(root, cache).keep_parses()
        (root / "_commands/c0.md").write_text("---\ndescription: changed\n---\nC0\n")
        _listed(root, cache).keep_parses()
    assert not (cache / "parses").exists() or not list((cache / "parses").iterdir())
    assert all(size <= 8 * 1024 for size in _kept_sizes(cache).values())
    said = [record.getMessage() for record in caplog.records if "not saved" in record.getMessage()]
    assert len(said) == 1 and said[0].startswith("kept parses for ") and "bytes is over the 8192 bytes a kept file may take" in said[0], said


def test_a_parse_too_large_to_keep_is_left_out_and_the_others_are_kept(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(parses, "MAX_RECORD_CHARS", 1000)
    root = write_files(tmp_path / "docroot", {
        "_commands/small.md": "---\ndescription: small\n---\nS\n",
        "_commands/large.md": f"---\ndescription: {'l' * 2000}\n---\nL\n",
    })
    cache = tmp_path / "cache"
    with caplog.at_level(logging.INFO, logger="guide"):
        _listed(root, cache).keep_parses()
    kept = json.loads((next((cache / "parses").iterdir())).read_bytes().partition(b"\n")[2])
    assert sorted(kept["files"]) == ["_commands/small.md"]
    said = [record.getMessage() for record in caplog.records if "is not kept" in record.getMessage()]
    assert said == ["the parse of _commands/large.md is not kept: its frontmatter takes 2018 characters as JSON, over 1000"]


# ---------------------------------------------------------------- a server under a ceiling serves the healthy files


@pytest.fixture(scope="module")
def bombed(tmp_path_factory):
    """A server (under the ceiling) on a docroot holding both bombs beside healthy files; yields its URL and log."""
    base = tmp_path_factory.mktemp("aliases")
    root = write_files(base / "docroot", {**HEALTHY, "_commands/bomb.md": BOMB, "guide.yaml": CONFIG_BOMB})
    with http_server(root, base / "server") as served:
        yield served


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_serves_the_healthy_files_and_refuses_the_bomb_in_one_line(bombed, mode):
    url, log = bombed
    async with Client(url, mode=mode) as client:
        listed = {str(resource.uri) for resource in await client.list_resources()}
        prompts = {prompt.name for prompt in await client.list_prompts()}
        ok = (await client.read_resource("guide://_ok"))[0].text
        flags = (await client.read_resource("guide://_flags"))[0].text
        document = (await client.read_resource("guide://lang/python"))[0].text
        with pytest.raises(MCPError) as refused:
            await client.read_resource("guide://_bomb")
    assert {"guide://_ok", "guide://_flags", "guide://lang/python"} <= listed and {"ok", "flags"} <= prompts
    assert (ok, document) == ("OK\n", "PYTHON\n")
    assert flags == "FLAGS [] TEAM []\n"  # guide.yaml is refused whole: the default settings (no flags) apply
    assert refused.value.error.message == COMMAND_MESSAGE
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "MemoryError" not in text, text[-3000:]


async def test_the_server_counts_both_bombs_in_its_start_line(bombed):
    url, log = bombed
    async with Client(url) as client:
        await client.read_resource("guide://_ok")  # the start check runs once the server has answered and is calm
        started = await until(lambda: _start_line(log), "the start line")
    assert started.endswith("3 commands, 0 skills, 0 partials, 1 document; 2 authoring errors (`guide check "
                            f"{log.parent.parent / 'docroot'}` lists them)"), started


async def _start_line(log) -> str | None:
    return next((line for line in log.read_text(errors="replace").splitlines() if " guide: serving " in line), None)
