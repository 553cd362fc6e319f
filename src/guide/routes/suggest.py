"""The "did you mean" of a not-found error: what a caller probably meant when their address names nothing (C3).

Each function returns a name or address to suggest, or None. Names are matched
with the one near-miss rule of `guide.spelling`.
"""

import posixpath

from guide import address
from guide.docroot.snapshot import Snapshot
from guide.spelling import near_miss


def command(snapshot: Snapshot, segments: tuple[str, ...]) -> str | None:
    """The command (or skill) a mistyped command name probably meant, by its name."""
    names = snapshot.names("command") + list(snapshot.aliases)
    for length in range(min(len(segments), max(snapshot.name_depth, 1)), 0, -1):
        found = near_miss("/".join(segments[:length]), names)
        if found:
            return found
    if len(segments) == 1 and snapshot.skill(segments[0]) is not None:
        return address.skill_address(segments[0])
    return None


def skill(snapshot: Snapshot, name: str) -> str | None:
    """The skill (or command) a mistyped skill name probably meant."""
    found = near_miss(name, snapshot.names("skill"))
    if found:
        return address.skill_address(found)
    if snapshot.command(name) is not None:
        return address.command_address(name)
    return None


def member(snapshot: Snapshot, skill_name: str, path: str) -> str | None:
    """The member of the skill a mistyped member path probably meant, or the skill itself if that is mistyped."""
    if snapshot.skill(skill_name) is None:
        found = near_miss(skill_name, snapshot.names("skill"))
        return address.member_address(found, path) if found else None
    members = [name for owner, name in snapshot.layout.members if owner == skill_name]
    found = near_miss(path, members)
    return address.member_address(skill_name, found) if found else None


def document(snapshot: Snapshot, path: str) -> str | None:
    """The document, command or skill an address without a known document probably meant."""
    documents = snapshot.layout.documents
    stem, suffix = posixpath.splitext(path)
    if suffix and stem in documents:
        return address.document_address(stem)
    found = near_miss(path, documents) or (near_miss(stem, documents) if suffix else None)
    if found:
        return address.document_address(found)
    if snapshot.find_command(tuple(path.split("/"))) is not None:
        return address.command_address(path)
    if "/" not in path and snapshot.skill(path) is not None:
        return address.skill_address(path)
    return None

