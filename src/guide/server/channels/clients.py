"""The client table at work (issue 36): what a request's client declared, as the table of the current docroot corrects it.

Guide reads what the client of a request declared (`Declared.of`: the request's
own capabilities on 2026-07-28, those of its `initialize` on legacy), then what
the client table says of the client its `clientInfo` names (`guide.clients`:
the operator's rows from guide.yaml before Guide's own). The table is made once
per docroot snapshot, so an edit of guide.yaml counts from the next read without
a restart, and what it says of one name and version is worked out once. The
channel is then chosen from the result (`Channels.for_request`).
"""


from fastmcp import Context

from guide.clients import CEILING, SHIPPED, UNREAD_DECLINE, Table, Traits
from guide.docroot.built import Built
from guide.docroot.folder import Docroot
from guide.docroot.memo import Once
from guide.server import work
from guide.server.channels.base import Declared
from guide.server.clients import OTHER, identity

TABLE: Once[Table] = Once("the client table: guide.yaml's rows before Guide's own")
SHIPPED_TABLE = Table(SHIPPED)
FITTED = 256
"""The most corrected declarations kept at once."""


class Clients:
    """What a request's client can take, from its declaration and the client table of the docroot's current snapshot."""

    def __init__(self, docroot: Docroot, unread_decline: float = UNREAD_DECLINE) -> None:
        self.docroot = docroot
        self.unread_decline = unread_decline
        """The bound for every client (the setting); a client its row says declines automatically has `CEILING`."""
        self._fitted: dict[tuple[Table, Declared, str, str], Declared] = {}
        """Each declaration as a table corrected it, by table, declaration, name and version: few, and asked on every read."""

    async def declared(self, ctx: Context) -> Declared:
        """What the client of this request declared, as the client table corrects it (asked once per request)."""
        declared = Declared.of(ctx)
        table = await work.built_or_build(self.docroot, lambda built: built.made(TABLE), table_of, gone=lambda: SHIPPED_TABLE)
        key = (table, declared, *identity(ctx))
        found = self._fitted.get(key)
        if found is None:
            if len(self._fitted) >= FITTED:  # client names are the clients' to choose: the memo never grows past its bound
                self._fitted.clear()
            traits, row = table.of(key[2], key[3])
            found = self._fitted[key] = fitted(declared, traits, row or OTHER, self.unread_decline)
        return found


def table_of(built: Built) -> Table:
    """The client table of a snapshot: the operator's rows (guide.yaml's `clients:`) before Guide's own (made once per snapshot)."""
    return built.value(TABLE, lambda: Table((*built.config.clients, *SHIPPED)))


def fitted(declared: Declared, traits: Traits, client: str, bound: float) -> Declared:
    """A declaration as the table's traits for its client correct it, with the bound its declines are judged by."""
    forms = declared.forms and traits.forms != "hidden"
    apps = declared.apps if traits.apps is None else traits.apps
    urls = declared.urls if traits.urls is None else traits.urls and (declared.forms or declared.urls)  # never without elicitation
    declines = {"automatic": CEILING, "person": 0.0}.get(traits.declines or "", min(bound, CEILING))
    return declared._replace(forms=forms, apps=apps, app_elicitation=forms and apps and declared.app_elicitation, urls=urls,
                             titles=traits.titles is not False, declines=declines, client=client)
