"""The Skills extension's manifest of a skill (SEP-2640): each file with the SHA-256 digest and size of the text a read serves.

Only a skill whose `SKILL.md` is the same for every reader gets one: no form
is asked before it renders, and its text does not change with the workflow
phase (rendered once without a phase and once with one, both texts must be the
same; Mustache can only print a value or test whether it is set, so any use of
the phase shows in one of the two). Its members are served as written. Every
text is the one a read of its address serves (the same resolve and render), so
a digest cannot drift from what a client fetches.
"""

import hashlib
import logging
from typing import Literal

from fastmcp.skills.models import SkillResource

from guide import address
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot
from guide.docroot.memo import Once
from guide.errors import GuideError
from guide.forms.step import Render, step
from guide.routes.finish import document_text, finish
from guide.routes.lookup import AddressRead, Call, Document, resolve

DYNAMIC: Literal["dynamic"] = "dynamic"
MEMBERS: Once[dict[str, list[str]]] = Once("each skill's member paths")
PROBE_PHASE = "\x00guide-phase-probe"
"""A phase no project can be in: a render that prints or tests the phase differs from the render without one."""

log = logging.getLogger("guide")


def manifest(docroot: Docroot, built: Built, skill: Entrypoint) -> list[SkillResource] | Literal["dynamic"]:
    """Each file of `skill` with its digest and size when its `SKILL.md` is the same for every reader, else `dynamic`."""
    try:
        text = _static_skill_file(built, skill)
        if text is None:
            return DYNAMIC
        files = [(address.skill_file_address(skill.name), text)]
        for member in members(built, skill.name):
            uri = address.skill_file_address(skill.name, member)
            found = resolve(built, AddressRead(uri))
            if not isinstance(found, Document):
                return DYNAMIC
            files.append((uri, document_text(docroot, found)))
    except GuideError as error:
        log.info("skill %s is listed without digests: %s", skill.name, error)
        return DYNAMIC
    return [_resource(uri, text) for uri, text in files]


def members(built: Built, skill: str) -> list[str]:
    """The paths of a skill's members, sorted (grouped once per snapshot)."""
    return built.value(MEMBERS, lambda: _by_skill(built)).get(skill, [])


def _by_skill(built: Built) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for name, member in sorted(built.snapshot.layout.members):
        grouped.setdefault(name, []).append(member)
    return grouped


def _static_skill_file(built: Built, skill: Entrypoint) -> str | None:
    """The `SKILL.md` a Skills client reads when it is the same for every reader, else None."""
    if skill.forms.forms:
        return None  # a skill that declares forms may ask them (checked first: most skills have forms, and resolving costs)
    call = resolve(built, AddressRead(address.skill_file_address(skill.name)))
    if not isinstance(call, Call):
        return None
    texts = set()
    for phase in (None, PROBE_PHASE):
        outcome = step(call.request(can_elicit=True, active_phase=phase))
        if not isinstance(outcome, Render):
            return None  # a form is asked: the text depends on the answers
        texts.add(finish(call, outcome, phase))
    return texts.pop() if len(texts) == 1 else None


def _resource(uri: str, text: str) -> SkillResource:
    data = text.encode("utf-8")
    return SkillResource(uri=uri, digest=f"sha256:{hashlib.sha256(data).hexdigest()}", size=len(data))
