"""The person of a scenario: what they do with each form a channel shows them, and what they gave.

A person answers a form as a form works: the fields with a default come
pre-filled, and their answers go over them; only the fields shown are sent
(a value an address already gives is not asked, C7.9). A form the scenario
does not answer is cancelled, as a person closes it; a link (a URL-mode form)
is opened when the scenario answers it with `{}`. The same person answers
every channel, so what differs between channels is Guide's doing.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from guide.docroot.scenarios.model import Reply


@dataclass
class Person:
    """One scenario's answers, and what a run of one channel has asked and been given."""

    answers: Mapping[str, Reply]
    asked: list[str] = field(default_factory=list)
    """The forms shown, in the order they came (a form asked again is listed again)."""
    submitted: dict[str, Any] = field(default_factory=dict)
    """Every field value sent with an accepted form: what the keywords channel reads in one address."""

    def fresh(self) -> "Person":
        """The same person, before any form is shown (one per channel run)."""
        return Person(self.answers)

    def form(self, form: str, schema: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """The action taken on a form shown with `schema` (delivered: without what the address gave), and the values sent."""
        self.asked.append(form)
        reply = self.answers.get(form, "cancel")
        if isinstance(reply, str):
            return reply, None
        properties = schema.get("properties", {})
        content = {name: spec["default"] for name, spec in properties.items() if isinstance(spec, Mapping) and "default" in spec}
        content.update({name: value for name, value in reply.items() if name in properties})
        self.submitted.update(content)
        return "accept", content

    def link(self, form: str) -> str:
        """The action taken on a link shown for a URL-mode form: opened (`{}`), declined or cancelled."""
        self.asked.append(form)
        reply = self.answers.get(form, "cancel")
        return reply if isinstance(reply, str) else "accept"

    def accepts(self, form: str) -> bool:
        """Whether the scenario answers `form` with values (or `{}`), rather than leaving or refusing it."""
        return isinstance(self.answers.get(form), Mapping)

    def gives(self, form: str, keyword: str, default: Any) -> tuple[bool, Any]:
        """What the person tells an agent for one field of a form it asks about: their value, else the default they keep."""
        reply = self.answers.get(form)
        if not isinstance(reply, Mapping):
            return False, None
        if keyword in reply:
            return True, reply[keyword]
        return (default is not None), default
