"""An `icon:` of a command, skill or document: a small image file in the docroot, or an `https` address (issue 37).

MCP's `Icon.src` takes an `https:` or a `data:` URI. A docroot file reaches the
client as a `data:` URI of its bytes, so the client fetches nothing from Guide
and the icon travels with the listing: it is read once per snapshot, and held
to `MAX_ICON_BYTES` since every listing that shows it carries it. The file is
named by its path from the docroot's root (`assets/review.png`); it must lie
inside the docroot (a symlink may not lead out), be a regular file, have an
image suffix, and begin as images of that type do (an SVG must be UTF-8 text
with an `<svg` element). An `https` address is checked, never fetched: Guide
fetches nothing at run time. Nothing else (`http:`, `data:`, `file:`) is taken.
"""

import base64
import posixpath
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from guide.docroot import files

MAX_ICON_BYTES = 16 * 1024
"""The largest icon file, in bytes (about 22,000 characters as a data: URI): a 64 x 64 PNG takes a few KiB."""
MAX_URL = 2048
"""The longest `https` icon address, in characters."""
TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml"}
"""The icon files taken, by suffix, with the MIME type each is given."""
_STARTS = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF87a", b"GIF89a")}
ACCEPTED = f"a {', '.join(TYPES)} file in the docroot (its path from the docroot's root, at most {MAX_ICON_BYTES // 1024} KiB) or an https:// address"


@dataclass(frozen=True, slots=True)
class Icon:
    """An icon as MCP carries it: a `src` URI and a MIME type."""

    src: str
    mime_type: str | None


def load(root: Path, value: str) -> Icon | str:
    """The icon `value` names, or one line saying why it cannot be."""
    if "://" in value or value.startswith(("data:", "http:", "file:")):
        return _address(value)
    if value.startswith("/") or "\\" in value or any(part in ("", ".", "..") or part.startswith(".") for part in value.split("/")):
        return f"icon {value!r} must be {ACCEPTED}; write the file's path from the docroot's root, without `/`, `..` or hidden folders"
    mime = TYPES.get(posixpath.splitext(value)[1].lower())
    if mime is None:
        return f"icon {value!r} must be {ACCEPTED}"
    try:
        data = files.read_bytes(files.real_path(root, value), MAX_ICON_BYTES)
    except files.TooLarge:
        return f"icon file {value} is larger than {MAX_ICON_BYTES // 1024} KiB; every listing carries it: make it smaller (a 64 x 64 image)"
    except files.Refused as error:
        return f"icon file {value} {error}"
    if not _looks_like(data, mime):
        return f"icon file {value} is not an image of type {mime} (its content does not begin as one does)"
    return Icon(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", mime)


def _address(value: str) -> Icon | str:
    parts = urlsplit(value)
    if parts.scheme != "https":
        return f"icon {value[:80]!r} must be {ACCEPTED}; other addresses ({parts.scheme or 'no scheme'}:) are not taken"
    if not parts.hostname or parts.username or parts.password or any(character.isspace() for character in value) or len(value) > MAX_URL:
        return f"icon {value[:80]!r} is not an https address a client can fetch: a host, no user name or spaces, at most {MAX_URL} characters"
    return Icon(value, TYPES.get(posixpath.splitext(parts.path)[1].lower()))


def _looks_like(data: bytes, mime: str) -> bool:
    if mime == "image/webp":
        return data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    if mime == "image/svg+xml":
        try:
            return "<svg" in data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return data.startswith(_STARTS[mime])
