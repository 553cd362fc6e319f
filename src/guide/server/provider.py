"""FastMCP components sourced from the docroot on every request, so edits need no restart (C3).

Every `guide://` read goes to one resource class that hands the address to the
route stage; listed resources, per-command templates and per-command prompts
only make the docroot visible to clients that browse. Listings are made once
per docroot snapshot, off the event loop, and each item converted to its wire
form once.
"""

from collections.abc import Callable
from typing import Any

from fastmcp.prompts import Prompt, PromptArgument
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from fastmcp.server.dependencies import get_context
from fastmcp.server.providers import Provider
from mcp_types import ReadResourceResult
from pydantic import PrivateAttr, ValidationError

from guide import address
from guide.address import Target
from guide.docroot.caches import PerSnapshot
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.layout import document_type
from guide.docroot.snapshot import Snapshot
from guide.errors import GuideError
from guide.forms.fields import Field
from guide.forms.values import accepted
from guide.protocol import MIME, ROUTE_PROMPT
from guide.routes.resolve import resolve, resolve_prompt
from guide.server import offload
from guide.server.errors import guarded
from guide.server.interact import Service

READ_CACHE_SIZE = 1024
CACHED_ADDRESS_LENGTH = 1024
"""Reads of longer addresses get a fresh component each time: the cache must stay small."""


class EntrypointText(ResourceResult):
    """The rendered text of an entrypoint: never to be cached, since a cached read would replay someone's answers."""

    def to_mcp_result(self, uri: Any) -> ReadResourceResult:
        """The wire result with `ttlMs: 0`, set explicitly so the server-wide caching hint leaves it alone."""
        return super().to_mcp_result(uri).model_copy(update={"ttl_ms": 0})


def _uncached(text: str) -> EntrypointText:
    return EntrypointText([ResourceContent(text, mime_type=MIME)])


def _once(wire: dict, overrides: dict[str, Any], convert: Callable[..., Any]) -> Any:
    """A component's wire form, converted once: listings are kept per snapshot, so their items never change."""
    key = tuple(sorted(overrides.items()))
    if key not in wire:
        wire[key] = convert(**overrides)
    return wire[key]


class GuideResource(Resource):
    """Any `guide://` address: help, a document, a skill member or an entrypoint read."""

    _service: Service = PrivateAttr()
    _address: str = PrivateAttr()
    """The address as the client sent it, which `uri` may not hold (a malformed one)."""
    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_resource(self, **overrides: Any) -> Any:
        """The listing entry of this resource (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_resource)

    async def read(self) -> Any:
        """Resolve this address against the current docroot, asking for input if needed."""
        ctx, service, uri = get_context(), self._service, self._address
        find = lambda: resolve(service.docroot, address.parse(uri))  # noqa: E731 - read in a worker thread
        return await guarded(ctx, lambda: service.serve(ctx, find, rendered=_uncached))


class ConvertedPrompt(Prompt):
    """A prompt whose listing entry is converted once."""

    _service: Service = PrivateAttr()
    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_prompt(self, **overrides: Any) -> Any:
        """The listing entry of this prompt (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_prompt)


class GuideTemplate(ResourceTemplate):
    """The resource template of an entrypoint (its fields as query keywords), converted once."""

    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_template(self, **overrides: Any) -> Any:
        """The listing entry of this template (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_template)


class RoutePrompt(ConvertedPrompt):
    """The `guide` prompt: `_review --mode=branch`, `:review --mode branch` or `;review --mode=branch`."""

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """Read the prompt text as a command route and resolve it."""
        ctx, service, line = get_context(), self._service, str((arguments or {}).get("command", ""))
        return await guarded(ctx, lambda: service.serve(ctx, lambda: resolve_prompt(service.docroot, line)))


class CommandPrompt(ConvertedPrompt):
    """A command as its own prompt; each argument is one of its form fields."""

    _command: str = PrivateAttr()

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """Resolve the command with the given arguments as keywords."""
        ctx, service = get_context(), self._service
        return await guarded(ctx, lambda: service.serve(ctx, lambda: resolve(service.docroot, self._target(arguments or {}))))

    def _target(self, arguments: dict[str, Any]) -> Target:
        keywords = {name: (str(value),) for name, value in arguments.items() if value is not None}
        address.check_length("".join(name + value for name, (value,) in keywords.items()), "the prompt arguments")
        return Target("command", tuple(self._command.split("/")), keywords)


class DocrootProvider(Provider):
    """Lists and serves the docroot's commands, skills, documents and prompts."""

    def __init__(self, service: Service):
        super().__init__()
        self.service = service
        self.docroot = service.docroot
        # Reading resolves the address anew each time, so one component per address (and MIME type) can be reused.
        self._reads: dict[tuple[str, str], GuideResource] = {}
        self._listings: PerSnapshot[list] = PerSnapshot()

    async def get_tasks(self) -> list:
        """No docroot component runs as a background task (so start-up need not list the docroot)."""
        return []

    async def _list_resources(self) -> list[Resource]:
        return await self._listing("resources", self._resources)

    def _resources(self, snapshot: Snapshot) -> list[Resource]:
        listed = [self._resource(e.uri, e.name, e.description) for e in snapshot.summaries("command") + snapshot.summaries("skill")]
        documents = snapshot.layout.documents
        listed += [self._resource(address.document_address(path), path, "document", document_type(documents[path])) for path in sorted(documents)]
        listed += [
            self._resource(address.member_address(skill, member), f"{skill}/{member}", f"member of skill {skill}")
            for (skill, member) in sorted(snapshot.layout.members)
            if snapshot.skill(skill)
        ]
        return listed

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        # Every address is Guide's to answer, even a malformed one or one of another
        # scheme: the route stage then says what is wrong, as the tool does (C3).
        uri = str(uri)
        key = (uri, self._mime(uri))
        resource = self._reads.get(key)
        if resource is None:
            resource = self._read_resource(uri, key[1])
            if len(uri) <= CACHED_ADDRESS_LENGTH:
                if len(self._reads) >= READ_CACHE_SIZE:
                    self._reads.pop(next(iter(self._reads)))
                self._reads[key] = resource
        return resource

    def _read_resource(self, uri: str, mime: str) -> GuideResource:
        try:
            resource = self._resource(uri if len(uri) <= address.MAX_LENGTH else address.PREFIX, "", "", mime)
        except ValidationError:
            resource = self._resource(address.PREFIX, "", "", mime)
        resource._address = uri
        return resource

    def _mime(self, uri: str) -> str:
        """The MIME type a read of `uri` is served as: a document's own (by its suffix), else Markdown."""
        try:
            target = address.parse(uri)
        except GuideError:
            return MIME  # the read reports the error
        rel = self.docroot.snapshot().layout.documents.get(target.path[0]) if target.kind == "document" else None
        return document_type(rel) if rel else MIME

    async def _list_resource_templates(self) -> list[ResourceTemplate]:
        return await self._listing("templates", self._templates)

    def _templates(self, snapshot: Snapshot) -> list[ResourceTemplate]:
        return [
            GuideTemplate(uri_template=template_uri(e), name=e.name, description=e.description, mime_type=MIME, parameters={})
            for e in snapshot.commands() + snapshot.skills()
            if e.forms.forms
        ]

    async def _list_prompts(self) -> list[Prompt]:
        return await self._listing("prompts", self._prompts)

    def _prompts(self, snapshot: Snapshot) -> list[Prompt]:
        unclaimed = {ROUTE_PROMPT, *snapshot.layout.shared_prompts}  # shared: two commands claim it, neither gets it (C3)
        commands = [self._command_prompt(c) for c in snapshot.commands() if address.prompt_name(c.name) not in unclaimed]
        return [self._route_prompt(), *commands]

    async def _listing(self, kind: str, make: Callable[[Snapshot], list]) -> list:
        """A listing made once per docroot snapshot (clients list often, the docroot changes rarely), off the event loop."""

        def listing() -> list:
            snapshot = self.docroot.snapshot()
            return list(self._listings.get(snapshot, kind, lambda: make(snapshot)))

        return await offload.run(listing)

    async def _get_prompt(self, name: str, version: Any = None) -> Prompt | None:
        if name == ROUTE_PROMPT:
            return self._route_prompt()
        return await offload.run(self._find_prompt, name)

    def _find_prompt(self, name: str) -> Prompt | None:
        snapshot = self.docroot.snapshot()
        command = snapshot.command(address.command_of_prompt(name))
        if command is None or address.prompt_name(command.name) != name or name in snapshot.layout.shared_prompts:
            return None
        return self._command_prompt(command)

    def _resource(self, uri: str, name: str, description: str, mime: str = MIME) -> GuideResource:
        resource = GuideResource(uri=uri, name=name or uri, description=description or None, mime_type=mime)
        resource._service = self.service
        resource._address = uri
        return resource

    def _route_prompt(self) -> RoutePrompt:
        prompt = RoutePrompt(
            name=ROUTE_PROMPT,
            description="Run a command by route: `_name --flag=value`, `:name --flag value` or `;name --flag=value`.",
            arguments=[PromptArgument(name="command", description="The route, e.g. `_review --mode=branch`.", required=True)],
        )
        prompt._service = self.service
        return prompt

    def _command_prompt(self, command: Entrypoint) -> CommandPrompt:
        arguments = [
            PromptArgument(name=field.name, description=field_description(field, form.message), required=False)
            for form in command.forms.forms
            for field in form.fields
        ]
        prompt = CommandPrompt(name=address.prompt_name(command.name), description=command.description or None, arguments=arguments)
        prompt._service = self.service
        prompt._command = command.name
        return prompt


def template_uri(entrypoint: Entrypoint) -> str:
    """The resource template of an entrypoint: its address with its fields as query keywords."""
    return address.template(entrypoint.uri, [field.name for form in entrypoint.forms.forms for field in form.fields])


def field_description(field: Field, message: str) -> str:
    """A prompt argument's description: the field's own words and what it accepts."""
    label = field.schema.get("description") or field.schema.get("title") or message
    return f"{label} ({accepted(field)})"
