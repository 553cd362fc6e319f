"""The agent (C7.12 c, C7.6): a client that can show no form; the failure tells the agent what to ask the person.

Nothing is asked: the pure step settles what defaults and `fallback: render`
allow, and otherwise fails with the keywords the caller must supply (its
wording is `guide.forms.failure`'s).
"""

from dataclasses import replace
from functools import partial

from fastmcp import Context

from guide.forms.step import Ask, Request, step
from guide.server.channels.base import Declared
from guide.server.eras.base import Driven, Era, Stepping


class Agent:
    """No form reaches the person: the agent is told what to ask."""

    name = "agent"
    asks = False

    def carries(self, declared: Declared) -> bool:
        """Any request: the channel of last resort."""
        return True

    def opens_links(self, declared: Declared) -> bool:
        """Never: a URL step reaches the agent as its link, in the failure (C7.6)."""
        return False

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """Settle without asking (a step that cannot ask never asks, so this is reached only by a request opened as asking)."""
        outcome = await stepping(partial(step, replace(request, can_elicit=False), asked.progress))
        assert not isinstance(outcome, Ask)
        return outcome
