"""Issue 21 item 4 (C5): `guide check` reports a form field that asks for a secret, at the field's line, and the entrypoint is unusable."""

import pytest
from support.files import write_files

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.errors import AuthoringError
from guide.routes.lookup import AddressRead, resolve

DEPLOY = """---
description: Deploy a service.
elicitation:
  target:
    message: Where to?
    schema:
      type: object
      properties:
        service: {type: string}
        max_tokens: {type: integer, default: 100}
        apiKey: {type: string, title: Key for the deploy API}
---
Deploy {{kwargs.service}}.
"""


def test_21_4_check_names_the_secret_field_with_file_and_line(tmp_path, capsys):
    root = write_files(tmp_path, {"_commands/deploy.md": DEPLOY})
    assert main(["check", str(root)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("_commands/deploy.md:11: form target: field 'apiKey' asks for a secret (its name says 'api key')")
    assert "ask for it out of band on a page of yours with a `mode: url` form instead, for example `apiKey-page: {mode: url, message:" in first
    assert first.endswith("with that host under `url-hosts:` in guide.yaml")
    with pytest.raises(AuthoringError, match="asks for a secret"):
        resolve(Docroot(root).build(), AddressRead("guide://_deploy?service=web"))


def test_21_4_the_same_command_without_the_secret_checks_clean(tmp_path, capsys):
    root = write_files(tmp_path, {"_commands/deploy.md": DEPLOY.replace("        apiKey: {type: string, title: Key for the deploy API}\n", "")})
    assert main(["check", str(root), "--strict"]) == 0, capsys.readouterr().out
