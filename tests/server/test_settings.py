"""Issue 18: every setting read once, from flags, the environment and fastmcp.json alike (flag over environment over default)."""

import ast
import os
import re
import secrets
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from guide.cli import main
from guide.docroot.store.disk import store_folder
from guide.errors import GuideError
from guide.server.settings import SETTINGS, Settings, read_settings

REPO = Path(__file__).resolve().parents[2]
SCAFFOLD_COMMAND = "guide://_change?kind=bug&issue=42&test_command=pytest"


def test_a_flag_wins_over_its_variable_and_a_variable_over_the_default(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert read_settings({}, {}).port == 8000
    assert read_settings({}, {"GUIDE_PORT": "9001"}).port == 9001
    assert read_settings({"port": "9002"}, {"GUIDE_PORT": "9001"}).port == 9002
    assert read_settings({"docroot": tmp_path / "a"}, {"GUIDE_DOCROOT": str(tmp_path / "b")}).docroot == tmp_path / "a"
    assert read_settings({}, {"GUIDE_DOCROOT": str(tmp_path / "b")}).docroot == tmp_path / "b"


async def test_guide_serve_serves_the_docroot_guide_docroot_names(tmp_path):
    assert main(["init", str(tmp_path / "docroot")]) == 0
    env = {**os.environ, "GUIDE_DOCROOT": str(tmp_path / "docroot"), "GUIDE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO / "src")}
    env.pop("GUIDE_STATE_KEYS", None)
    transport = StdioTransport(command=sys.executable, args=["-m", "guide", "serve"], env=env, cwd=str(tmp_path))  # no --docroot
    async with Client(transport) as client:
        text = (await client.read_resource(SCAFFOLD_COMMAND))[0].text
    assert "Fix issue #42" in text


@pytest.mark.parametrize(
    ("environ", "line"),
    [
        ({"GUIDE_STATE_KEYS": "short-key"}, "GUIDE_STATE_KEYS: its value is not a list of keys of at least 32 bytes each, comma-separated (key 1 is shorter)"),
        ({"GUIDE_STATE_TTL": "ten minutes"}, "GUIDE_STATE_TTL: 'ten minutes' is not a number greater than 0"),
        ({"GUIDE_PORT": "http"}, "GUIDE_PORT: 'http' is not a number greater than 0"),
        ({"GUIDE_LOG_LEVEL": "loud"}, "GUIDE_LOG_LEVEL: 'loud' is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ({"GUIDE_TRANSPORT": "sse"}, "GUIDE_TRANSPORT: 'sse' is not one of stdio, http"),
        ({"GUIDE_CACHE_TTL": "-1"}, "GUIDE_CACHE_TTL: '-1' is not a number, 0 or more"),
        ({"GUIDE_MAX_OUTPUT": "0"}, "GUIDE_MAX_OUTPUT: '0' is not a number greater than 0"),
        ({"GUIDE_LIST_PAGE_SIZE": "many"}, "GUIDE_LIST_PAGE_SIZE: 'many' is not a number, 0 or more"),
        ({"GUIDE_FORWARDED_ALLOW_IPS": "nginx"}, "GUIDE_FORWARDED_ALLOW_IPS: 'nginx' is not a list of IP addresses or networks (comma-separated), or *"),
        ({"GUIDE_NO_CACHE": "please"}, "GUIDE_NO_CACHE: 'please' is not 1 or 0"),
        ({"GUIDE_DOCROOT": "/nowhere/at/all"}, "GUIDE_DOCROOT: '/nowhere/at/all' is not a folder"),
        ({"GUIDE_DOCRROT": "/tmp"}, "GUIDE_DOCRROT is not a Guide setting; did you mean GUIDE_DOCROOT?"),
    ],
)
def test_a_malformed_setting_stops_the_start_with_one_line_naming_it(environ, line):
    with pytest.raises(GuideError) as raised:
        read_settings({}, environ)
    assert str(raised.value) == line


def test_a_jwks_address_that_is_not_https_stops_the_start(monkeypatch, capsys):
    monkeypatch.setenv("GUIDE_AUTH_JWKS_URI", "http://id.example.com/jwks.json")
    monkeypatch.setenv("GUIDE_AUTH_ISSUER", "https://id.example.com")
    monkeypatch.setenv("GUIDE_AUTH_AUDIENCE", "guide")
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == (
        "guide serve: GUIDE_AUTH_JWKS_URI: 'http://id.example.com/jwks.json' is not an https:// address; the signing keys must come over https\n"
    )


def test_a_bad_flag_is_named_as_the_flag(capsys):
    assert main(["serve", "--answer-timeout", "soon"]) == 2
    assert capsys.readouterr().err == "guide serve: --answer-timeout: 'soon' is not a number greater than 0\n"


def test_a_secret_is_never_repeated_in_the_line():
    key = secrets.token_hex(8)  # too short to seal with
    with pytest.raises(GuideError) as raised:
        read_settings({}, {"GUIDE_STATE_KEYS": key})
    assert key not in str(raised.value)


def test_serve_help_lists_every_setting_with_its_variable_meaning_default_and_flag():
    done = subprocess.run([sys.executable, "-m", "guide", "serve", "--help"], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")}, timeout=60)
    lines = done.stdout.splitlines()
    for setting in SETTINGS:
        listed = [line for line in lines if line.strip().startswith(setting.variable + " ")]
        assert listed and setting.described in listed[0], f"{setting.variable} is not listed with its meaning and the table's default"
        assert f"default: {setting.default_text}" in listed[0]
        assert listed[0].endswith(f"; flag {setting.flag}") if setting.flag else "flag" not in listed[0]
        assert setting.flag is None or f"[{setting.flag} {setting.metavar}]" in " ".join(done.stdout.split())
    named = {name for path in (REPO / "src" / "guide").rglob("*.py") for name in re.findall(r"\bGUIDE_[A-Z_]*[A-Z]\b", path.read_text())}
    missing = sorted(name for name in named if name not in done.stdout and name != "GUIDE_AUTH")
    assert missing == [], f"named but not listed in guide serve --help: {missing}"


def test_each_setting_s_variable_flag_and_default_is_written_once():
    assert [setting.name for setting in SETTINGS] == [spec.name for spec in fields(Settings)]
    assert read_settings({}, {}) == Settings()  # the defaults are the fields' own: nothing else supplies one
    said = [setting.variable for setting in SETTINGS if "default" in setting.meaning.lower()]
    assert said == [], f"these meanings say a default of their own (--help adds the field's): {said}"
    spelt = {setting.variable for setting in SETTINGS} | {setting.flag for setting in SETTINGS if setting.flag}
    found = [f"{path.relative_to(REPO)}:{node.lineno} {node.value}" for path in sorted((REPO / "src" / "guide").rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Constant) and node.value in spelt]
    assert found == [], f"a setting's variable or flag spelt out (take it from guide.server.settings.SETTING): {found}"


def test_the_app_form_setting_is_on_by_default_and_turned_off_by_its_variable_or_flag():
    assert read_settings({}, {}).app_forms is True
    assert read_settings({}, {"GUIDE_APP_FORMS": "0"}).app_forms is False
    assert read_settings({"app_forms": "1"}, {"GUIDE_APP_FORMS": "0"}).app_forms is True
    with pytest.raises(GuideError, match="GUIDE_APP_FORMS: 'maybe' is not 1 or 0"):
        read_settings({}, {"GUIDE_APP_FORMS": "maybe"})


def test_the_docs_that_list_settings_agree_with_the_table():
    synopsis = re.search(r"```\n(guide serve \[.*?)```", (REPO / "docs" / "cli.md").read_text(), re.S).group(1)
    assert set(re.findall(r"\[(--[a-z-]+)", synopsis)) == {setting.flag for setting in SETTINGS if setting.flag}, "docs/cli.md: guide serve's options"
    by_variable = {setting.variable: setting for setting in SETTINGS}
    table = (REPO / "deploy" / "README.md").read_text().split("## Settings", 1)[1].split("\n\n", 2)[1]
    for row in table.splitlines()[2:]:
        named, _, default = (cell.strip() for cell in row.strip("|").split("|"))
        variables = re.findall(r"`(GUIDE_[A-Z_]+)`", named)
        assert variables and all(variable in by_variable for variable in variables), f"deploy/README.md: {named} is not a setting"
        assert re.findall(r"`(--[a-z-]+)`", named) == [flag for variable in variables if (flag := by_variable[variable].flag)], row
        value = default.split(":")[0].replace("`", "").replace(",", "")
        if re.fullmatch(r"[\w.]+", value):  # a value, not a description: the table's default
            assert [by_variable[variable].default_text for variable in variables] == [value] * len(variables), row


def test_the_store_folder_comes_from_the_settings(tmp_path):
    def folder(environ: dict[str, str]) -> Path | None:
        settings = read_settings({}, environ)
        return store_folder(settings.cache_dir, off=settings.no_cache)

    assert folder({"GUIDE_CACHE_DIR": str(tmp_path)}) == tmp_path.resolve()
    assert folder({"GUIDE_NO_CACHE": "1", "GUIDE_CACHE_DIR": str(tmp_path)}) is None
    assert folder({"GUIDE_NO_CACHE": "0", "GUIDE_CACHE_DIR": str(tmp_path)}) == tmp_path.resolve()
    if sys.platform.startswith("linux"):
        assert folder({}).name == "guide"


def test_the_unread_decline_bound_is_a_number_from_0_to_4():
    assert read_settings({}, {}).unread_decline == 1.5
    assert read_settings({}, {"GUIDE_UNREAD_DECLINE": "0"}).unread_decline == 0
    assert read_settings({"unread_decline": "4"}, {}).unread_decline == 4
    for given in ("4.5", "-1", "soon"):
        with pytest.raises(GuideError, match=rf"GUIDE_UNREAD_DECLINE: '{given}' is not a number"):
            read_settings({}, {"GUIDE_UNREAD_DECLINE": given})
