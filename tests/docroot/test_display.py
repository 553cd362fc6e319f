"""Issue 37, part 4: `title:`, `icon:` and `audience:` on commands, skills and documents are read, checked and linted with file and line."""

import base64
import os

import pytest
from support.files import write_files

from guide.docroot import icons
from guide.docroot.display import Display
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.errors import AuthoringError
from guide.routes.lookup import AddressRead, resolve
from guide.routes.skill_file import frontmatter

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'


def docroot_with(tmp_path, files: dict[str, str], images: dict[str, bytes] | None = None) -> Docroot:
    root = write_files(tmp_path / "docroot", files)
    for rel, data in (images or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return Docroot(root)


def command(front: str) -> str:
    return f"---\ndescription: Review.\n{front}---\nREVIEW\n"


def errors(docroot: Docroot) -> list[str]:
    return [str(problem) for problem in lint(docroot.build()).problems]


def test_the_three_keys_are_read_for_lists_and_a_docroot_icon_becomes_a_data_uri(tmp_path):
    docroot = docroot_with(tmp_path, {
        "_commands/review.md": command("title: Review a change\nicon: assets/review.png\naudience: [user, assistant]\n"),
        "lang/python.md": "---\ntitle: Python conventions\naudience: assistant\nicon: https://example.com/py.svg\n---\nP\n",
        "plain.md": "P\n",
    }, {"assets/review.png": PNG})
    built = docroot.build()
    assert errors(docroot) == []
    assert built.display("_commands/review.md") == Display("Review a change", "assets/review.png", ("user", "assistant"))
    assert built.display("lang/python.md") == Display("Python conventions", "https://example.com/py.svg", ("assistant",))
    assert not built.display("plain.md")
    assert built.icon("assets/review.png") == icons.Icon("data:image/png;base64," + base64.b64encode(PNG).decode(), "image/png")
    assert built.icon("https://example.com/py.svg") == icons.Icon("https://example.com/py.svg", "image/svg+xml")


FRONT_MISTAKES = [
    ("title: 5\n", "`title` must be one line of text, at most 200 characters (say more in `description`)"),
    ("title: |\n  Two\n  lines\n", "`title` must be one line of text"),
    (f"title: {'x' * 201}\n", "`title` must be one line of text, at most 200 characters"),
    ("audience: asistant\n", "`audience` 'asistant' is not one of user, assistant; did you mean `assistant`?"),
    ("audience: [user, user]\n", "`audience` names a role twice"),
    ("audience: {user: true}\n", "`audience` must be user, assistant, or a list of them ([user, assistant])"),
    ("icon: 3\n", "`icon` must be a .png, .jpg, .jpeg, .gif, .webp, .svg file in the docroot"),
    ("icon: assets/missing.png\n", "icon file assets/missing.png is gone"),
    ("icon: ../outside.png\n", "icon '../outside.png' must be a .png"),
    ("icon: /etc/logo.png\n", "write the file's path from the docroot's root, without `/`, `..` or hidden folders"),
    ("icon: assets/logo.bmp\n", "icon 'assets/logo.bmp' must be a .png, .jpg, .jpeg, .gif, .webp, .svg file in the docroot"),
    ("icon: assets/fake.png\n", "icon file assets/fake.png is not an image of type image/png (its content does not begin as one does)"),
    ("icon: assets/big.png\n", "icon file assets/big.png is larger than 16 KiB; every listing carries it"),
    ("icon: http://example.com/a.png\n", "other addresses (http:) are not taken"),
    ("icon: 'https://me:secret@example.com/a.png'\n", "is not an https address a client can fetch"),
    ("icon: data:image/png;base64,AAAA\n", "other addresses (data:) are not taken"),
    ("titel: Review\n", "unknown command frontmatter key `titel`; did you mean `title`?"),
    ("icons: assets/review.png\n", "unknown command frontmatter key `icons`; did you mean `icon`?"),
    ("audiance: user\n", "unknown command frontmatter key `audiance`; did you mean `audience`?"),
]


@pytest.mark.parametrize(("front", "message"), FRONT_MISTAKES)
def test_a_mistaken_key_is_an_error_with_file_and_line_and_the_command_cannot_be_read(tmp_path, front, message):
    images = {"assets/review.png": PNG, "assets/fake.png": b"GIF89a....", "assets/big.png": PNG + b"\0" * (icons.MAX_ICON_BYTES + 1)}
    docroot = docroot_with(tmp_path, {"_commands/review.md": command(front)}, images)
    found = [line for line in errors(docroot) if line.startswith("_commands/review.md")]
    assert len(found) == 1 and found[0].startswith("_commands/review.md:3: ") and message in found[0], found
    with pytest.raises(AuthoringError, match="_commands/review.md:3"):
        resolve(docroot.build(), AddressRead("guide://_review"))


def test_an_icon_that_links_out_of_the_docroot_is_refused(tmp_path):
    outside = tmp_path / "outside.png"
    outside.write_bytes(PNG)
    docroot = docroot_with(tmp_path, {"lang/python.md": "---\nicon: assets/logo.png\n---\nP\n"})
    (docroot.root / "assets").mkdir()
    os.symlink(outside, docroot.root / "assets" / "logo.png")
    assert errors(docroot) == ["lang/python.md:2: icon file assets/logo.png is a symlink to a file outside the docroot"]
    with pytest.raises(AuthoringError):
        resolve(docroot.build(), AddressRead("guide://lang/python"))


def test_an_svg_icon_must_be_svg_text(tmp_path):
    docroot = docroot_with(tmp_path, {"a.md": "---\nicon: i/a.svg\n---\nA\n", "b.md": "---\nicon: i/b.svg\n---\nB\n"},
                           {"i/a.svg": SVG, "i/b.svg": b"\xff\xfe<svg"})
    assert errors(docroot) == ["b.md:2: icon file i/b.svg is not an image of type image/svg+xml (its content does not begin as one does)"]
    assert docroot.build().icon("i/a.svg").src.startswith("data:image/svg+xml;base64,")


def test_a_skill_serves_none_of_the_three_in_its_skill_file_and_a_partial_keeps_them_as_notes(tmp_path):
    docroot = docroot_with(tmp_path, {
        "_skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage.\ntitle: Triage a report\naudience: assistant\n---\nT\n",
        "_partials/common.md": "---\ntitle: Common\n---\nC\n",
    })
    built = docroot.build()
    assert frontmatter(built.skill("triage")) == {"name": "triage", "description": "Triage."}
    report = lint(built)
    assert report.problems == []
    assert [str(note) for note in report.notes] == ["_partials/common.md:2: frontmatter key `title` is not one Guide reads; it is kept as your own metadata"]
