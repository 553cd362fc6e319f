"""C5 (turn 4): `guide render` with a URL-mode form: without a client it names the link; an answers file can open, decline or skip it."""

import json

import pytest

from guide.cli import main

DEPLOY = """---
elicitation:
  target:
    message: Where?
    schema: {type: object, properties: {env: {type: string, enum: [staging, production]}}, required: [env]}
  signin:
    mode: url
    message: Sign in.
    url: "https://accounts.example.com/in?env={{kwargs.env}}"
---
Deploy to {{kwargs.env}}.{{#elicitation.opened.signin}} Signed in.{{/elicitation.opened.signin}}
"""


@pytest.fixture
def docroot(tmp_path):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "deploy.md").write_text(DEPLOY)
    (tmp_path / "guide.yaml").write_text("url-hosts: [accounts.example.com]\n")
    return tmp_path


def render(capsys, docroot, *arguments) -> tuple[int, str, str]:
    status = main(["render", *arguments, "--docroot", str(docroot)])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_c5_url_render_without_a_client_names_the_link_and_the_step(capsys, docroot):
    status, _, err = render(capsys, docroot, "guide://_deploy?env=production")
    assert status == 1
    assert "form signin: missing: a URL step: the person opens its link, in a client that opens links" in err
    assert "give the person this link: https://accounts.example.com/in?env=production" in err


@pytest.mark.parametrize(("reply", "text", "status"), [({}, "Deploy to staging. Signed in.\n", 0), ("decline", "", 1)])
def test_c5_url_render_with_an_answers_file_opens_or_declines_the_link(capsys, docroot, tmp_path, reply, text, status):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"target": {"env": "staging"}, "signin": reply}))
    found, out, err = render(capsys, docroot, "guide://_deploy", "--answers", str(answers))
    assert (found, out) == (status, text)
    assert ("form signin was declined" in err) == (reply == "decline")
