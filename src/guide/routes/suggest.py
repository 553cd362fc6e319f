"""The "did you mean" of a not-found error: what a caller probably meant when their address names nothing (C3).

Each function returns a name or address to suggest, or None. Names are matched
with the one near-miss rule of `guide.spelling`.
"""

import posixpath

from guide import address
from guide.docroot.built import Built
from guide.spelling import is_near_miss, near_miss


def command(built: Built, segments: tuple[str, ...]) -> str | None:
    """The command (or skill) a mistyped command name probably meant, by its name."""
    names = built.names("command") + list(built.aliases())
    for length in range(min(len(segments), max(built.name_depth(), 1)), 0, -1):
        found = near_miss("/".join(segments[:length]), names)
        if found:
            return found
    if len(segments) == 1 and built.skill(segments[0]) is not None:
        return address.skill_address(segments[0])
    return None


def skill(built: Built, name: str) -> str | None:
    """The skill (or command) a mistyped skill name probably meant."""
    found = near_miss(name, built.names("skill"))
    if found:
        return address.skill_address(found)
    if built.command(name) is not None:
        return address.command_address(name)
    return None


def member(built: Built, skill_name: str, path: str) -> str | None:
    """The member of the skill a mistyped member path probably meant, or the skill itself if that is mistyped."""
    if built.skill(skill_name) is None:
        found = near_miss(skill_name, built.names("skill"))
        return address.member_address(found, path) if found else None
    members = [name for owner, name in built.snapshot.layout.members if owner == skill_name]
    found = near_miss(path, members)
    return address.member_address(skill_name, found) if found else None


def collection(built: Built, name: str) -> str | None:
    """The collection of guide.yaml a mistyped collection name probably meant."""
    found = near_miss(name, built.config.collections)
    return address.collection_address(found) if found else None


def document(built: Built, path: str) -> str | None:
    """The document, command, skill or collection an address without a known document probably meant (never one that does not apply)."""
    if path.startswith(address.COLLECTION_MARK) and collection(built, path[1:]):
        return collection(built, path[1:])
    stem, suffix = posixpath.splitext(path)
    if suffix and built.document(stem) is not None:
        return address.document_address(stem)
    found = _applying_document(built, path) or (_applying_document(built, stem) if suffix else None)
    if found:
        return address.document_address(found)
    if built.find_command(tuple(path.split("/"))) is not None:
        return address.command_address(path)
    if "/" not in path and built.skill(path) is not None:
        return address.skill_address(path)
    return collection(built, path) if "/" not in path else None


def _applying_document(built: Built, path: str) -> str | None:
    """The applying document `path` is a near miss of; only near misses are asked whether they apply (that may read them)."""
    candidates = [name for name in built.snapshot.layout.documents if is_near_miss(path, name)]
    return near_miss(path, [name for name in candidates if built.document(name) is not None])
