"""Issue 37, part 3: collections in guide.yaml and folder addresses name documents in order; `guide check` knows what they name."""

import pytest
from support.files import write_files

from guide.docroot import bundles
from guide.docroot import files as files_module
from guide.docroot.config import read_config
from guide.docroot.entries import Entry
from guide.docroot.folder import Docroot
from guide.docroot.lint import lint
from guide.errors import AuthoringError, NotFoundError
from guide.render import RenderTooLarge
from guide.routes.bundle import bundle_text
from guide.routes.lookup import AddressRead, Bundle, Document, resolve

FILES = {
    "lang/python.md": "---\ntitle: Python conventions\n---\nUse black.\n",
    "lang/go.md": "Use gofmt.\n",
    "lang/old/perl.md": "Use strict.\n",
    "lang/cobol.md": "---\nrequires-team: mainframe\n---\nNo.\n",
    "review/checklist.md": "- tests pass\n",
    "limits.json": '{"cpu": 4}\n',
}
CONFIG = """\
flags:
  team: platform
collections:
  guidelines:
    - review/checklist
    - lang/*
    - "@limits"
    - lang/go
  limits: [limits]
  everything: ["**"]
"""


def built_of(tmp_path, config=CONFIG, **more):
    return Docroot(write_files(tmp_path / "docroot", {**FILES, "guide.yaml": config, **more})).build()


def paths(found: Bundle) -> list[str]:
    return list(found.paths)


def test_a_collection_lists_its_entries_in_order_each_document_once_and_only_those_that_apply(tmp_path):
    built = built_of(tmp_path)
    found = resolve(built, AddressRead("guide://%40guidelines"))
    assert isinstance(found, Bundle) and found.uri == "guide://%40guidelines"
    # a glob's matches by path; lang/cobol does not apply; lang/go is kept where it first came; @limits in its place
    assert paths(found) == ["review/checklist", "lang/go", "lang/python", "limits"]


def test_star_stays_in_one_folder_and_double_star_and_a_folder_cross_them(tmp_path):
    built = built_of(tmp_path)
    assert bundles.members(built, [Entry("lang/*", 1)]) == ["lang/go", "lang/python"]
    assert bundles.members(built, [Entry("lang/**", 1)]) == ["lang/go", "lang/old/perl", "lang/python"]
    assert bundles.members(built, [Entry("**/perl", 1), Entry("lang/", 1)]) == ["lang/old/perl", "lang/go", "lang/python"]
    assert bundles.members(built, [Entry("lang/?o", 1)]) == ["lang/go"]


def test_a_folder_address_reads_every_document_below_it_by_path(tmp_path):
    built = built_of(tmp_path)
    assert paths(resolve(built, AddressRead("guide://lang/"))) == ["lang/go", "lang/old/perl", "lang/python"]
    assert paths(resolve(built, AddressRead("guide://lang/old/"))) == ["lang/old/perl"]
    with pytest.raises(NotFoundError, match="no document in folder langs/"):
        resolve(built, AddressRead("guide://langs/"))


def test_the_at_sign_clients_drop_still_reads_the_collection_unless_a_document_has_its_name(tmp_path):
    built = built_of(tmp_path)
    assert isinstance(resolve(built, AddressRead("guide://@limits")), Document)  # sent as guide://limits: the document of that name
    assert paths(resolve(built, AddressRead("guide://%40limits"))) == ["limits"]  # the collection, by its listed address
    built = built_of(tmp_path, CONFIG.replace("limits: [limits]", "limits: [limits]\n  checks: [review/checklist]"))
    assert paths(resolve(built, AddressRead("guide://@checks"))) == ["review/checklist"]
    assert paths(resolve(built, AddressRead("guide://checks"))) == ["review/checklist"]
    notes = [str(note) for note in lint(built).notes if note.path == "guide.yaml"]
    assert notes == ["guide.yaml:9: collection `limits` has the name of document limits.json: `guide://@limits` reaches Guide as `guide://limits`"
                     " (normalising drops the @), which reads the document; the collection is read at guide://%40limits"]


def test_an_unknown_collection_names_the_one_it_resembles(tmp_path):
    with pytest.raises(NotFoundError, match=r"no collection guideline in guide.yaml; did you mean guide://%40guidelines\?"):
        resolve(built_of(tmp_path), AddressRead("guide://%40guideline"))


BROKEN = """\
collections:
  guidelines:
    - lang/pyhton
    - lang/python.md
    - langs/*
    - old/
    - "@limit"
  limits: [limits, "@loop"]
  loop: ["@limits"]
instructions: [start]
"""


def test_guide_check_names_each_broken_entry_with_its_line_and_what_it_resembles(tmp_path):
    report = lint(built_of(tmp_path, BROKEN))
    assert [str(problem) for problem in report.problems if problem.path == "guide.yaml"] == [
        "guide.yaml:3: `lang/pyhton` names no document; did you mean `lang/python`?",
        "guide.yaml:4: `lang/python.md` names no document; did you mean `lang/python`?",
        "guide.yaml:5: `langs/*` matches no document (documents are named by their address path, without extension: `lang/python`)",
        "guide.yaml:6: `old/` matches no document (documents are named by their address path, without extension: `lang/python`)",
        "guide.yaml:7: `@limit` names no collection; did you mean `@limits`? (collections: @guidelines, @limits, @loop)",
        "guide.yaml:9: collections include each other in a loop: @limits -> @loop -> @limits; remove one of these entries",
        "guide.yaml:10: `start` names no document",
    ]


def test_a_collection_with_a_problem_or_reaching_one_cannot_be_read_and_the_others_can(tmp_path):
    built = built_of(tmp_path, BROKEN.replace("instructions: [start]\n", "") + "  fine: [lang/go]\n  wider: ['@fine', '@loop']\n")
    with pytest.raises(AuthoringError, match=r"guide.yaml:3: `lang/pyhton` names no document.* \(and 4 more\)"):
        resolve(built, AddressRead("guide://%40guidelines"))
    with pytest.raises(AuthoringError, match="loop: @limits -> @loop -> @limits"):
        resolve(built, AddressRead("guide://%40wider"))  # through @loop
    assert paths(resolve(built, AddressRead("guide://%40fine"))) == ["lang/go"]


def test_a_collection_whose_documents_do_not_apply_is_not_found(tmp_path):
    built = built_of(tmp_path, "flags: {team: platform}\ncollections:\n  old: [lang/cobol]\n")
    assert not [problem for problem in lint(built).problems if problem.path == "guide.yaml"]  # it names a document that exists
    with pytest.raises(NotFoundError, match="collection old holds no document that applies"):
        resolve(built, AddressRead("guide://%40old"))


@pytest.mark.parametrize(("config", "line", "message"), [
    ("collections: [a]\n", 1, "`collections` must be a mapping of collection name to a list of documents"),
    ("collections:\n  a b: [x]\n", 1, "collection name 'a b' must be 1-64 letters, digits, '-' or '_'"),
    ("collections:\n  a: []\n", 2, "collection 'a' must be a non-empty list of documents, globs, folders or '@collections'"),
    ("collections:\n  a:\n    - x\n    - guide://lang/go\n", 4, "entry 'guide://lang/go': write the document's path as its address has it, without `guide://` (`lang/go`)"),
    ("collections:\n  a: [/etc/passwd]\n", 2, "entry '/etc/passwd' must be a path inside the docroot"),
    ("collections:\n  a: [lang/../x]\n", 2, "entry 'lang/../x' must be a path inside the docroot"),
    ("collections:\n  a: ['@b c']\n", 2, "entry '@b c' must name a collection"),
    ("instructions: {a: b}\n", 1, "`instructions` must be a document (`guidelines/start`) or a non-empty list"),
    ("instructions: [start, 3]\n", 1, "entry 3 must be a document's path"),
    ("collections:\n  a: [lang/*, @b]\n", 2, "in YAML a value that starts with @, *, & or a backquote must be quoted ('@guidelines', '**/intro')"),
    ("colections: {}\n", 1, "unknown key `colections`; did you mean `collections`?"),
    ("instruction: start\n", 1, "unknown key `instruction`; did you mean `instructions`?"),
])
def test_a_mistaken_collection_or_instructions_says_what_it_accepts_with_its_line(tmp_path, config, line, message):
    root = write_files(tmp_path, {"guide.yaml": config})
    _, problems = read_config(root)
    assert [(problem.line, message in problem.message) for problem in problems] == [(line, True)], problems


def test_entries_keep_their_lines_in_guide_yaml(tmp_path):
    config, problems = read_config(write_files(tmp_path, {"guide.yaml": CONFIG + "instructions: start\n"}))
    assert problems == []
    assert config.collections["guidelines"] == (Entry("review/checklist", 5), Entry("lang/*", 6), Entry("@limits", 7), Entry("lang/go", 8))
    assert config.instructions == (Entry("start", 11),)


def test_a_bundle_reads_its_documents_in_turn_and_stops_at_the_first_past_the_cap(tmp_path, monkeypatch):
    docroot = Docroot(write_files(tmp_path / "docroot", {f"notes/n{number}.txt": "x" * 400 + "\n" for number in range(50)}))
    bundle = resolve(docroot.build(), AddressRead("guide://notes/"))
    reads = []
    real_read = files_module.read_text
    monkeypatch.setattr(files_module, "read_text", lambda root, rel, *args, **options: reads.append(rel) or real_read(root, rel, *args, **options))
    with pytest.raises(RenderTooLarge, match=r"guide://notes/ holds 50 documents, more than one read returns: the first 2 fit in the output cap of 1,000"):
        bundle_text(docroot, bundle, max_output=1000)
    assert reads == ["notes/n0.txt", "notes/n1.txt", "notes/n10.txt"]  # by path; nothing read past the first that does not fit


def test_a_bundle_with_a_broken_document_fails_with_its_error(tmp_path):
    built = built_of(tmp_path, **{"lang/go.md": "---\ndescripton: Go\n---\nUse gofmt.\n"})
    with pytest.raises(AuthoringError, match=r"lang/go.md:2: unknown document frontmatter key `descripton`; did you mean `description`\?"):
        bundle_text(Docroot(built.snapshot.root), resolve(built, AddressRead("guide://lang/")))
