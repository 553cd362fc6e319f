"""Every example in the docs works against the bundled example docroot."""

import json
import re
from pathlib import Path

import pytest
import yaml

from guide.docroot.folder import Docroot
from guide.docroot.frontmatter import load_mapping, split
from guide.errors import GuideError
from guide.examples import DOCROOT
from guide.forms.step import Fail, read_keywords
from guide.routes.lookup import AddressRead, Call, resolve
from guide.scaffold import DOCROOT as SCAFFOLD

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)
SOURCE = re.compile(r"[Ff]rom `([^`]+)`")
ADDRESS = re.compile(r"guide://[^\s`'\"<>)\]]+")


def _yaml_blocks():
    text = (ROOT / "docs" / "authoring.md").read_text()
    for match in BLOCK.finditer(text):
        if match.group(1) == "yaml":
            before = text[: match.start()].rstrip().splitlines()[-3:]
            sources = [found for line in before for found in SOURCE.findall(line)]
            yield pytest.param(sources[-1] if sources else None, match.group(2), id=f"line{text[: match.start()].count(chr(10)) + 1}")


def _addresses():
    for doc in DOCS:
        for address in sorted(set(ADDRESS.findall(doc.read_text()))):
            address = address.rstrip(".,:;")
            if "{" not in address and "<" not in address:
                yield pytest.param(address, id=f"{doc.name}:{address}")


def _frontmatter(source: str) -> dict:
    path = DOCROOT / source
    return dict(load_mapping(path.read_text()) if path.name == "guide.yaml" else split(path.read_text()).meta)


@pytest.mark.parametrize(("source", "block"), list(_yaml_blocks()))
def test_each_yaml_example_is_an_excerpt_of_the_named_file(source, block):
    assert source, "each YAML example names the bundled file it comes from"
    excerpt = yaml.safe_load(block)
    actual = _frontmatter(source)
    for key, value in excerpt.items():
        if key == "elicitation":
            for form_id, form in value.items():
                assert actual["elicitation"][form_id] == form, f"{source}: form {form_id} differs from the docs"
        elif key == "workflow" or key == "flags":
            assert {k: actual[key][k] for k in value} == value
        else:
            assert actual[key] == value, f"{source}: {key} differs from the docs"


def _works(docroot: Path, uri: str) -> bool:
    """Whether the address reads content, or finds an entrypoint whose keywords it gives are valid, on that docroot."""
    try:
        found = resolve(Docroot(docroot).build(), AddressRead(uri))
    except GuideError:
        return False
    return not isinstance(found, Call) or not isinstance(read_keywords(found.request(can_elicit=True, active_phase=None)), Fail)


@pytest.mark.parametrize("uri", list(_addresses()))
def test_each_documented_address_works_on_the_example_or_the_starter_docroot(uri):
    assert _works(DOCROOT, uri) or _works(SCAFFOLD, uri)


def test_the_answers_file_example_in_the_cli_docs_is_valid_json():
    text = (ROOT / "docs" / "cli.md").read_text()
    blocks = [match.group(2) for match in BLOCK.finditer(text) if match.group(1) == "json"]
    answers = json.loads(blocks[-1])
    assert set(answers) <= {"target", "reference", "depth"}
    assert all(isinstance(value, dict) or value in ("decline", "cancel") for value in answers.values())


SHELL_BLOCK = {"sh", "shell", "bash", "console"}
SHELL_START = re.compile(r"^(\$ )?(guide|\.venv/bin/guide|claude|fastmcp|pipx|GUIDE_\w+=\S*) ")
INLINE = re.compile(r"`([^`\n]+)`")
SHELL_SPECIAL = set("$&?;|<>()*[]! ")


def _shell_commands():
    """Every shell command the docs show: lines of shell blocks, and code spans or plain-block lines that start like one."""
    for doc in DOCS:
        text = doc.read_text()
        for match in BLOCK.finditer(text):
            for line in match.group(2).splitlines():
                if match.group(1) in SHELL_BLOCK or (not match.group(1) and SHELL_START.match(line)):
                    yield doc.name, line
        for span in INLINE.findall(BLOCK.sub("", text)):
            if SHELL_START.match(span):
                yield doc.name, span


def test_the_docs_show_shell_commands_with_addresses():
    quoted = [line for _, line in _shell_commands() if "'guide://$" in line]
    assert quoted, "at least one shell example reads a skill, so the quoting rule below is exercised"


@pytest.mark.parametrize(("doc", "line"), list(_shell_commands()))
def test_shell_examples_single_quote_every_address_the_shell_would_change(doc, line):
    for match in re.finditer(r"guide://[^\s'\"`]*", line):
        if SHELL_SPECIAL & set(match.group()):
            assert line[match.start() - 1 : match.start()] == "'" and line[match.end() : match.end() + 1] == "'", f"{doc}: quote {match.group()!r} in: {line}"
