"""docs/errors.md shows the failure shape as the server builds it: its example is the bundled example's real failure."""

import json
import re
from pathlib import Path

from guide.docroot.folder import Docroot
from guide.examples import DOCROOT
from guide.forms.resolve import Fail, step
from guide.routes.resolve import AddressRead, resolve

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def test_the_documented_failure_is_the_one_a_client_without_forms_gets():
    text = DOC.read_text()
    message = re.search(r"```\n(.*?)\n```", text, re.S).group(1)
    data = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    call = resolve(Docroot(DOCROOT).current(), AddressRead(data["address"]))
    outcome = step(call.request(can_elicit=False, active_phase=None))
    assert isinstance(outcome, Fail)
    assert str(outcome.error) == message  # the summary line, then the agent channel's questions (C7.12 c)
    assert outcome.message == message.partition("\n")[0]
    assert outcome.data() == data
    assert [question["when"] for question in data["questions"]] == [None, {"mode": ["branch", "pull-request"]}, None]


def test_every_key_of_a_question_is_documented():
    text = DOC.read_text()
    data = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    section = text[text.index("## The agent channel") : text.index("## Retrying")]
    documented = set(re.findall(r"^\| `([a-z]+)` \| ", section, re.M))
    assert set(data["questions"][0]) <= documented
    assert set(data["questions"][0]["fields"][0]) - set(data["fields"][0]) == {"titles"} and "`titles`" in section


def test_every_reason_the_core_can_give_is_documented():
    documented = set(re.findall(r"^\| `([a-z-]+)` \| ", DOC.read_text(), re.M))
    assert set(Fail.__annotations__["kind"].__args__) <= documented
