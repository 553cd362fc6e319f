"""Issue 36: the client table (guide.clients): rows read from guide.yaml, matched by name and version, merged trait by trait."""

import pytest

from guide.clients import CEILING, SHIPPED, Row, Table, Traits, in_range, read_rows
from guide.server.channels.base import Declared
from guide.server.channels.clients import fitted


def rows(data) -> tuple[tuple[Row, ...], list[str]]:
    told = []
    return read_rows(data, lambda keys, message: told.append(message)), told


@pytest.mark.parametrize(("version", "versions", "holds"), [
    ("2.1.144", "", True),
    ("2.1.144", ">=2.1.76", True),
    ("2.1.75", ">=2.1.76", False),
    ("2.1.76", ">=2.1.76,<2.2", True),
    ("2.2", ">=2.1.76,<2.2", False),
    ("2.2.0-beta.1", "<2.2", False),  # its leading numbers: 2.2.0
    ("1.104.2-insider", "==1.104.2", True),
    ("0.154.0", "!=0.154", False),
    ("nightly", ">=1", False),  # no number to compare: only a row without a range names it
    ("", "", True),
])
def test_a_version_is_in_a_range_by_its_leading_numbers(version, versions, holds):
    assert in_range(version, versions) is holds


def test_rows_match_a_glob_over_the_name_in_any_case_and_the_first_row_setting_a_trait_wins():
    table = Table([Row("acme-*", ">=2", Traits(forms="hidden")), Row("Acme-Desk", traits=Traits(forms="shown", apps=True)), *SHIPPED])
    assert table.of("ACME-desk", "2.4") == (Traits(forms="hidden", apps=True), "acme-*")
    assert table.of("acme-desk", "1.9") == (Traits(forms="shown", apps=True), "Acme-Desk")
    assert table.of("claude-code", "2.1.144") == (Traits(declines="automatic"), "claude-code")
    assert table.of("somebody", "1") == (Traits(), "")


def test_an_operator_row_overrides_one_trait_of_guide_s_own_and_keeps_the_rest():
    table = Table([*rows([{"name": "claude-code", "titles": False}])[0], *SHIPPED])
    assert table.of("claude-code", "2.1.200")[0] == Traits(declines="automatic", titles=False)
    table = Table([*rows([{"name": "claude-code", "declines": "person"}])[0], *SHIPPED])
    assert table.of("claude-code", "2.1.200")[0] == Traits(declines="person")


def test_guide_yaml_rows_are_read_and_each_broken_row_is_told_and_left_out():
    found, told = rows([
        {"name": "claude-code", "versions": ">=2.1.76", "declines": "automatic"},
        {"name": "x", "form": "hidden"},
        {"name": "y", "forms": "maybe"},
        {"name": "z", "versions": "about 2"},
        {"name": "w", "apps": "yes"},
        {"versions": "1"},
        "codex",
        {"name": "v", "versions": 2, "urls": False},
    ])
    assert [(row.name, row.versions) for row in found] == [("claude-code", ">=2.1.76"), ("v", "2")]
    assert told == [
        "`clients` entry 2: unknown key `form`; did you mean `forms`?",
        "`clients` entry 3: `forms` is shown or hidden",
        "`clients` entry 4: `versions` is a range such as `>=2.1.76,<2.2` (clauses of >=, >, <=, <, == or != and a version, comma-separated)",
        "`clients` entry 5: `apps` is true or false",
        "`clients` entry 6: each client is a mapping with a `name` (the clientInfo name, or a glob such as `local-agent-*`)",
        "`clients` entry 7: each client is a mapping with a `name` (the clientInfo name, or a glob such as `local-agent-*`)",
    ]
    assert rows({"claude-code": {}})[1] == ["`clients` must be a list of clients, each `{name: <clientInfo name or glob>, ...}` with what Guide should know of it"]
    assert rows(None) == ((), [])


FORMS = Declared(forms=True)
BOTH = Declared(forms=True, apps=True, app_elicitation=True, urls=True)


@pytest.mark.parametrize(("declared", "traits", "expected"), [
    (FORMS, Traits(), Declared(forms=True, declines=1.5, client="c")),
    (FORMS, Traits(forms="hidden"), Declared(declines=1.5, client="c")),
    (FORMS, Traits(forms="hidden", apps=True), Declared(apps=True, declines=1.5, client="c")),
    (BOTH, Traits(forms="hidden"), Declared(apps=True, urls=True, declines=1.5, client="c")),
    (BOTH, Traits(apps=False, urls=False), Declared(forms=True, declines=1.5, client="c")),
    (Declared(), Traits(urls=True), Declared(declines=1.5, client="c")),  # never URL mode without elicitation
    (FORMS, Traits(declines="automatic", titles=False), Declared(forms=True, titles=False, declines=CEILING, client="c")),
    (FORMS, Traits(declines="person"), Declared(forms=True, declines=0.0, client="c")),
])
def test_what_the_table_says_corrects_the_declaration(declared, traits, expected):
    assert fitted(declared, traits, "c", 1.5) == expected


def test_the_bound_is_never_past_the_ceiling():
    assert fitted(FORMS, Traits(), "c", 60.0).declines == CEILING


async def test_a_client_naming_itself_anew_each_time_never_grows_what_is_kept(tmp_path):
    from types import SimpleNamespace

    from mcp_types import ClientCapabilities, Implementation, InitializeRequestParams

    from guide.docroot.folder import Docroot
    from guide.server.channels.clients import FITTED, Clients

    clients = Clients(Docroot(tmp_path))
    for number in range(3 * FITTED):
        params = InitializeRequestParams(protocol_version="2025-11-25", capabilities=ClientCapabilities(), client_info=Implementation(name=f"c{number}", version="1"))
        ctx = SimpleNamespace(request_context=object(), session=SimpleNamespace(client_capabilities=params.capabilities, client_params=params))
        assert (await clients.declared(ctx)).client == "other"
        assert len(clients._fitted) <= FITTED
    (table,) = {key[0] for key in clients._fitted}
    assert table.of.cache_info().currsize <= 256
