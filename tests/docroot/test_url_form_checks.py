"""C5 (turn 4): `guide check` names each mistake of a URL-mode form with file and line, and the command is then unusable."""

import json

import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.errors import AuthoringError
from guide.routes.lookup import AddressRead, resolve

HOSTS = "url-hosts: [accounts.example.com, '*.example.org', localhost]\n"
HEAD = """---
elicitation:
  target:
    message: Where?
    schema:
      type: object
      properties:
        env: {type: string, enum: [staging, production]}
      required: [env]
  signin:
    mode: url
    message: Sign in.
"""
LINE = 13
"""The line of the `signin` form's first key after `message` (its `url`, or what a test puts there)."""


def checked(tmp_path, capsys, signin: str, hosts: str = HOSTS, after: str = "") -> list[dict]:
    """The errors `guide check --format json` reports for a command whose `signin` form ends with `signin`."""
    root = write_files(tmp_path, {"guide.yaml": hosts, "_commands/deploy.md": HEAD + signin + after + "---\nDeploy.\n"})
    status = main(["check", str(root), "--format", "json"])
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert status == (1 if errors else 0)
    return errors


def only(errors: list[dict]) -> tuple[int, str | None, str]:
    [error] = errors
    assert error["path"] == "_commands/deploy.md"
    return error["line"], error["form"], error["message"]


def test_c5_url_a_correct_url_form_checks_clean_and_serves(tmp_path, capsys):
    assert checked(tmp_path, capsys, '    url: "https://accounts.example.com/in?env={{kwargs.env}}"\n') == []
    assert resolve(Docroot(tmp_path).build(), AddressRead("guide://_deploy")).entrypoint.forms.forms[1].url is not None


@pytest.mark.parametrize(("url", "said"), [
    ('"https://accounts.example.com/in?e={{kwargs.evn}}"', "`kwargs.evn` names no field; did you mean `env`?"),
    ('"https://accounts.example.com/{{elicitation.opened.target}}"', "`elicitation.opened.target` names no URL-mode form before this one"),
    ('"https://accounts.example.com/{{workflow.phase}}"', "`workflow` is not known when the step is asked"),
    ('"https://accounts.example.com/{{>signature}}"', "`{{>signature}}`: a link reads no partial"),
    ('"https://accounts.example.com/{{#kwargs.env}}"', "template error: Unclosed section `{{#kwargs.env}}`"),
])
def test_c5_url_unknown_template_references_are_named(tmp_path, capsys, url, said):
    line, form, message = only(checked(tmp_path, capsys, f"    url: {url}\n"))
    assert (line, form) == (LINE, "signin") and said in message and message.startswith("`url`: ")


@pytest.mark.parametrize(("url", "said"), [
    ('"https://evil.example.com/in"', "the link goes to host evil.example.com, which is not listed under url-hosts in guide.yaml"),
    ('"https://example.org/{{kwargs.env}}"', "goes to host example.org, which is not listed"),  # *.example.org: subdomains only
    ('"http://accounts.example.com/in"', "uses http on accounts.example.com; http is accepted on a loopback host only"),
    ('"ftp://accounts.example.com/{{kwargs.env}}"', "has scheme ftp; accepted: https (or http on a loopback host)"),
    ('"https://me@accounts.example.com/in"', "carries a user name or password before its host"),
])
def test_c5_url_a_host_off_the_list_or_a_scheme_other_than_https_is_named(tmp_path, capsys, url, said):
    line, form, message = only(checked(tmp_path, capsys, f"    url: {url}\n"))
    assert (line, form) == (LINE, "signin") and said in message


def test_c5_url_http_on_a_loopback_host_and_a_listed_subdomain_are_accepted(tmp_path, capsys):
    assert checked(tmp_path, capsys, '    url: "http://localhost:8080/in?e={{kwargs.env}}"\n') == []
    assert checked(tmp_path, capsys, '    url: "https://team.example.org/in"\n') == []
    assert checked(tmp_path, capsys, '    url: "https://{{kwargs.env}}.example.org/in"\n') == []  # the host is checked when rendered


def test_c5_url_without_url_hosts_every_link_is_refused(tmp_path, capsys):
    line, _, message = only(checked(tmp_path, capsys, '    url: "https://accounts.example.com/in"\n', hosts=""))
    assert line == LINE and message.endswith("which is not listed under url-hosts in guide.yaml (none are listed)")


def test_c5_url_a_schema_on_a_url_form_is_named(tmp_path, capsys):
    line, form, message = only(checked(tmp_path, capsys, '    url: "https://accounts.example.com/in"\n    schema: {type: object}\n'))
    assert (line, form) == (LINE + 1, "signin") and message.startswith("a `mode: url` form has no `schema`")


def test_c5_url_a_missing_url_or_message_is_named(tmp_path, capsys):
    line, form, message = only(checked(tmp_path, capsys, ""))
    assert form == "signin" and message.startswith("a `mode: url` form needs a non-empty string `url`")
    errors = checked(tmp_path, capsys, '    url: ""\n')
    assert [error["message"][:40] for error in errors] == ["a `mode: url` form needs a non-empty str"]
    no_message = HEAD.replace("    message: Sign in.\n", "")
    root = write_files(tmp_path / "m", {"guide.yaml": HOSTS, "_commands/deploy.md": no_message + '    url: "https://accounts.example.com/in"\n---\nx\n'})
    assert main(["check", str(root)]) == 1
    assert "_commands/deploy.md:10: form signin: a form needs a non-empty string `message`" in capsys.readouterr().out


def test_c5_url_a_field_of_a_later_form_and_a_stray_mode_are_named(tmp_path, capsys):
    later = "  later:\n    message: Later.\n    schema: {type: object, properties: {team: {type: string}}}\n"
    line, _, message = only(checked(tmp_path, capsys, '    url: "https://accounts.example.com/{{kwargs.team}}"\n', after=later))
    assert line == LINE and "`kwargs.team` is asked by form later, after this link; declare form later before form signin" in message
    stray = "  other:\n    mode: link\n    message: x\n    schema: {type: object, properties: {x: {type: string}}}\n"
    line, form, message = only(checked(tmp_path, capsys, '    url: "https://accounts.example.com/in"\n', after=stray))
    assert form == "other" and message.startswith("unknown mode 'link'; accepted: form, url")
    misplaced = "  other:\n    url: https://accounts.example.com/x\n    message: x\n    schema: {type: object, properties: {x: {type: string}}}\n"
    _, form, message = only(checked(tmp_path, capsys, '    url: "https://accounts.example.com/in"\n', after=misplaced))
    assert form == "other" and message.startswith("`url` belongs to a `mode: url` form; add `mode: url`")


def test_c5_url_a_bad_url_hosts_entry_is_named_and_the_read_is_refused(tmp_path, capsys):
    root = write_files(tmp_path, {"guide.yaml": "url-hosts: [https://accounts.example.com]\n",
                                  "_commands/deploy.md": HEAD + '    url: "https://accounts.example.com/in"\n---\nx\n'})
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "guide.yaml:1: `url-hosts`: 'https://accounts.example.com' is not a host name in lower case, an IP address or *.domain" in out
    with pytest.raises(AuthoringError, match="not listed under url-hosts"):
        resolve(Docroot(root).build(), AddressRead("guide://_deploy"))


def test_c5_url_body_references_to_opened_forms_are_checked(tmp_path, capsys):
    root = write_files(tmp_path, {"guide.yaml": HOSTS, "_commands/deploy.md": HEAD + '    url: "https://accounts.example.com/in"\n---\n'
                                  "{{#elicitation.opened.signin}}in{{/elicitation.opened.signin}}{{elicitation.opened.signn}}\n"})
    assert main(["check", str(root)]) == 1
    assert "`elicitation.opened.signn` names no form; did you mean `signin`?" in capsys.readouterr().out


@pytest.mark.parametrize("broken", ["{type: string, enum: [staging, production], default: qa}", '{type: string, source: "list:nope"}'],
                         ids=["bad-default", "unknown-list"])
def test_c5_url_a_link_naming_a_field_of_a_broken_form_reports_only_that_forms_error(tmp_path, capsys, broken):
    # The form with the error is dropped; its field is still declared, so the link's reference to it is not a second error.
    head = HEAD.replace("env: {type: string, enum: [staging, production]}", f"env: {broken}")
    root = write_files(tmp_path, {"guide.yaml": HOSTS, "_commands/deploy.md": head + '    url: "https://accounts.example.com/{{kwargs.env}}"\n---\nD.\n'})
    assert main(["check", str(root), "--format", "json"]) == 1
    [error] = json.loads(capsys.readouterr().out)["errors"]
    assert (error["line"], error["form"], error["field"]) == (8, "target", "env") and "url" not in error["message"]
