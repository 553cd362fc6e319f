"""The channels: how a pending form reaches the person (C7.12), chosen once per read from what the client declared.

A channel is an object with the one interface `Channel`. `Channels` holds one
of each for a server and gives the one a request's client can take
(`for_request`): native forms when it declares form elicitation (naming Guide's
page when it declares app-rendered elicitation), Guide's MCP App form when it
declares MCP Apps (and the setting leaves the App channel on),
else the agent (C7.6). What it declared is first corrected by the client table
(`clients.Clients`: a client that declares forms but shows none, say). Nothing
outside this folder asks which channel a read takes. A new channel is a new
module here and one place in `Channels`.
"""

from guide.server.channels.agent import Agent
from guide.server.channels.app import PAGE_URI, AppForm
from guide.server.channels.base import Channel, Declared
from guide.server.channels.native import Native


class Channels:
    """One of each channel for one server, in the order they are offered a request."""

    def __init__(self, *, app_forms: bool = True) -> None:
        """`app_forms`: whether the MCP App form is offered (the `app_forms` setting)."""
        native: tuple[Channel, ...] = (Native(), Native(titled=False))
        app: tuple[Channel, ...] = (Native(PAGE_URI), *native, AppForm()) if app_forms else native
        self.all: tuple[Channel, ...] = (*app, Agent())
        self._chosen: dict[Declared, Channel] = {}  # a declaration has a few fields of a few values: the choice is made once for each

    def for_request(self, declared: Declared) -> Channel:
        """The channel that takes the pending forms of a request whose client declared `declared` (as the client table corrects it)."""
        found = self._chosen.get(declared)
        if found is None:
            found = self._chosen[declared] = next(channel for channel in self.all if channel.carries(declared))
        return found


__all__ = ["Channel", "Channels", "Declared"]
