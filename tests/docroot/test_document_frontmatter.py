"""Issue 21, item 1 (C2): a document's frontmatter is read, never served; its `requires-*` decide whether it exists."""

import pytest
from support.files import write_files

from guide.docroot import documents
from guide.docroot import files as files_module
from guide.docroot.built import Built, same_listings
from guide.docroot.filework import Files
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.docroot.store import parses as parses_module
from guide.docroot.store.disk import Store
from guide.errors import AuthoringError, NotFoundError
from guide.routes import help as help_text
from guide.routes.finish import document_text
from guide.routes.lookup import AddressRead, Document, resolve

FILES = {
    "guide.yaml": "flags:\n  team: platform\n",
    "notes.md": "---\ndescription: Data team notes\nrequires-team: data\n---\n# Notes\n",
    "runbook.md": "---\ndescription: Platform runbook\nrequires-team: platform\n---\n# Runbook\n",
    "plain.md": "# Plain\n",
    "limits.json": '{"cpu": 4}\n',
    "_skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage.\n---\nT\n",
    "_skills/triage/notes.md": "---\ndescription: Member notes\nrequires-team: data\n---\nM\n",
}


def built_of(tmp_path, files=FILES, **changes) -> Built:
    return Docroot(write_files(tmp_path / "docroot", {**files, **changes}), store=Store(tmp_path / "cache")).build()


def messages(problems) -> list[tuple[str, int | None, str]]:
    return [(problem.path, problem.line, problem.message) for problem in problems]


def test_21_1_a_documents_description_is_its_listed_description(tmp_path):
    built = built_of(tmp_path)
    rels = built.documents()
    assert built.document_description(rels["runbook"]) == "Platform runbook"
    assert built.document_description(rels["plain"]) == built.document_description(rels["limits"]) == ""
    overview = help_text.overview(built)
    assert "- `guide://runbook`: Platform runbook\n" in overview
    assert "- `guide://plain`: plain.md\n" in overview  # without a description: the file, as before


def test_21_1_requires_decides_whether_a_document_exists(tmp_path):
    built = built_of(tmp_path)
    assert built.document("notes") is None and built.document("runbook") == "runbook.md"
    assert list(built.documents()) == ["limits", "plain", "runbook"]
    assert "guide://notes" not in help_text.overview(built)
    with pytest.raises(NotFoundError) as info:
        resolve(built, AddressRead("guide://notes"))
    assert str(info.value) == "no document notes; guide://_help lists the commands, skills and documents"
    assert built_of(tmp_path, **{"guide.yaml": "flags:\n  team: data\n"}).document("notes") == "notes.md"


def test_21_1_a_near_miss_suggests_only_a_document_that_applies(tmp_path):
    built = built_of(tmp_path)
    with pytest.raises(NotFoundError) as hidden:
        resolve(built, AddressRead("guide://note"))  # a near miss of notes, which does not apply
    with pytest.raises(NotFoundError) as applying:
        resolve(built, AddressRead("guide://runbok"))
    with pytest.raises(NotFoundError) as suffixed:
        resolve(built, AddressRead("guide://runbook.md"))
    assert "did you mean" not in str(hidden.value)
    assert str(applying.value) == "no document runbok; did you mean guide://runbook?"
    assert str(suffixed.value) == "no document runbook.md; did you mean guide://runbook?"


def test_21_1_the_served_text_is_the_body_without_the_frontmatter_block(tmp_path):
    built = built_of(tmp_path, **{"bom.md": "\ufeff---\ndescription: With a BOM\n---\nB\n", "data.yaml": "---\na: 1\n"})
    docroot = Docroot(built.snapshot.root)
    served = {path: document_text(docroot, resolve(built, AddressRead(f"guide://{path}"))) for path in ("runbook", "plain", "bom", "data")}
    assert served == {"runbook": "# Runbook\n", "plain": "# Plain\n", "bom": "B\n", "data": "---\na: 1\n"}  # YAML has no frontmatter


def test_21_1_a_skill_member_is_served_as_written(tmp_path):
    built = built_of(tmp_path)
    member = resolve(built, AddressRead("guide://$triage/notes.md"))
    assert isinstance(member, Document) and member.built is None  # served as written: its frontmatter is never read
    assert document_text(Docroot(built.snapshot.root), member) == FILES["_skills/triage/notes.md"]


def test_21_1_a_document_whose_frontmatter_is_not_yaml_is_an_error_that_refuses_its_read(tmp_path):
    built = built_of(tmp_path, **{"bad.md": "---\ndescription: [unclosed\n---\nbody\n"})
    [problem] = lint(built).problems
    assert (problem.path, problem.line) == ("bad.md", 3) and problem.message.startswith("frontmatter is not valid YAML")
    with pytest.raises(AuthoringError) as info:
        resolve(built, AddressRead("guide://bad"))
    assert str(info.value) == str(problem)  # "bad.md:3: frontmatter is not valid YAML: ..."
    assert "guide://bad" in help_text.overview(built)  # listed, as an entrypoint with an error is


def test_21_1_guide_check_checks_a_documents_keys_as_an_entrypoints(tmp_path):
    built = built_of(
        tmp_path,
        **{
            "typo.md": "---\ndescripton: Typo\n---\nbody\n",
            "undefined.md": "---\nrequires-teem: data\n---\nbody\n",
            "numbered.md": "---\ndescription: 42\n---\nbody\n",
            "mine.md": "---\ndescription: Mine\nowner: ada\n---\nbody\n",
        },
    )
    report = lint(built)
    assert messages(report.problems) == [
        ("numbered.md", 2, "`description` must be a string"),
        ("typo.md", 2, "unknown document frontmatter key `descripton`; did you mean `description`?"),
        (
            "undefined.md",
            2,
            "`requires-teem` names flag 'teem', which guide.yaml does not define (defined: team), so this file never applies; did you mean `requires-team`?",
        ),
    ]
    assert messages(report.notes) == [("mine.md", 3, "frontmatter key `owner` is not one Guide reads; it is kept as your own metadata")]
    with pytest.raises(AuthoringError, match="typo.md:2: unknown document frontmatter key"):
        resolve(built, AddressRead("guide://typo"))
    assert built.document("undefined") is None  # a flag guide.yaml does not define never holds


def test_21_1_elicitation_on_a_document_stays_one_note_and_is_never_asked(tmp_path):
    form = "elicitation:\n  f:\n    message: M.\n    schema: {type: object, properties: {x: {type: string}}}\n"
    built = built_of(tmp_path, **{"asks.md": f"---\ndescription: Asks\n{form}---\nbody\n"})
    report = lint(built)
    assert report.problems == []
    assert messages(report.notes) == [("asks.md", 3, documents.NEVER_ASKED)]
    assert document_text(Docroot(built.snapshot.root), resolve(built, AddressRead("guide://asks"))) == "body\n"


def test_21_1_a_listing_and_help_read_no_document_when_the_store_holds_their_parses(tmp_path, monkeypatch):
    many = {f"docs/d{i:03d}.md": (f"---\ndescription: Doc {i}\n---\nD\n" if i % 2 else f"# Doc {i}\n") for i in range(100)}
    root = write_files(tmp_path / "docroot", {**FILES, **many})
    first = Docroot(root, store=Store(tmp_path / "cache"))
    lint(first.build())
    first.keep_parses()
    monkeypatch.setattr(parses_module, "RACY_NS", -(10**18))  # as if every file had been written long before it was read
    again = Docroot(root, store=Store(tmp_path / "cache"))
    again.parses.load_after = 0
    reads = []
    real_read = Files._read
    monkeypatch.setattr(Files, "_read", lambda self, rel: reads.append(rel) or real_read(self, rel))
    built = again.build()
    overview = help_text.overview(built)
    described = [built.document_description(rel) for rel in built.documents().values()]
    assert "- `guide://docs/d001`: Doc 1\n" in overview and "- `guide://docs/d000`: docs/d000.md\n" in overview
    assert described.count("") == 52 and reads == []  # 50 without frontmatter, plain.md and limits.json
    assert again.parses.parsed == 0


def test_21_1_a_changed_description_changes_the_listings_and_a_body_edit_does_not(tmp_path):
    root = write_files(tmp_path / "docroot", FILES)
    docroot = Docroot(root, store=Store(tmp_path / "cache"))
    before = docroot.build()
    before.documents(), before.document_description("runbook.md")  # what a listing reads
    write_files(root, {"runbook.md": "---\ndescription: Platform runbook\nrequires-team: platform\n---\n# Runbook, edited\n"})
    docroot.invalidate([root / "runbook.md"])
    body_edited = docroot.build()
    assert same_listings(before, body_edited)
    write_files(root, {"runbook.md": "---\ndescription: The platform runbook\nrequires-team: platform\n---\n# Runbook\n"})
    docroot.invalidate([root / "runbook.md"])
    assert not same_listings(body_edited, docroot.build())
    assert docroot.build().document_description("runbook.md") == "The platform runbook"


def test_a_body_edit_keeps_the_listings_of_a_build_that_listed_from_kept_summaries(tmp_path, monkeypatch):
    """A restarted server lists from the kept parses alone; a body edit then is no listing change (C3: nothing announced)."""
    root = write_files(tmp_path / "docroot", {**FILES, "handbook.md": "---\ndescription: Handbook\n---\n# Handbook\n"})
    first = Docroot(root, store=Store(tmp_path / "cache"))
    lint(first.build())
    first.keep_parses()
    monkeypatch.setattr(parses_module, "RACY_NS", -(10**18))  # as if every file had been written long before it was read
    docroot = Docroot(root, store=Store(tmp_path / "cache"))
    docroot.parses.load_after = 0
    before = docroot.build()
    before.documents(), before.document_description("handbook.md")  # what a listing reads: the kept summary
    assert before.files.work("handbook.md").front is None
    write_files(root, {"handbook.md": "---\ndescription: Handbook\n---\n# Handbook, edited\n"})
    docroot.invalidate([root / "handbook.md"])
    body_edited = docroot.build()
    assert same_listings(before, body_edited)
    write_files(root, {"handbook.md": "---\ndescription: The handbook\n---\n# Handbook\n"})
    docroot.invalidate([root / "handbook.md"])
    assert not same_listings(before, docroot.build())


def test_21_1_a_first_read_of_a_document_reads_its_file_once(tmp_path, monkeypatch):
    root = write_files(tmp_path / "docroot", FILES)
    docroot = Docroot(root, store=Store(tmp_path / "cache"))
    built = docroot.build()
    reads = []
    real_read = files_module.read_text
    monkeypatch.setattr(files_module, "read_text", lambda root, rel, *args, **options: reads.append(rel) or real_read(root, rel, *args, **options))
    document = resolve(built, AddressRead("guide://runbook"))
    assert document_text(docroot, document) == document_text(docroot, document) == "# Runbook\n"
    assert reads == ["runbook.md"]  # its `requires-*`, its checks and both reads of its body come from one read
