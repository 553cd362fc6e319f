"""C2, C4, C10: the docroot model (layout, frontmatter, configuration, requires, includes, caching)."""

import os
import textwrap

import pytest

import guide.docroot.filework as filework_module
import guide.docroot.folder as folder_module
from guide.docroot.folder import Docroot
from guide.docroot.lint import report


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def docroot_of(root, files):
    for rel, text in files.items():
        write(root, rel, text)
    return Docroot(root)


def snapshot(root, files):
    return docroot_of(root, files).build()


def problems_of(snap):
    return [(p.path, p.line, p.form, p.field, p.message) for p in report(snap)[0]]


FORM = """
---
{head}elicitation:
  {form}:
    message: Say.
    schema:
      type: object
      properties:
        {field}: {{type: string}}
---
{body}
"""


def command(form="f", field="x", head="", body="Body."):
    return FORM.format(form=form, field=field, head=head, body=body)


# C2 layout


def test_c2_layout_sorts_every_file_by_role(tmp_path):
    files = {
        "_commands/review.md": "r",
        "_commands/notes.mustache": "n",
        "_commands/workflow/phase.md": "p",
        "_commands/_draft.md": "not a command",
        "_commands/_partials/top.md": "t",
        "_commands/workflow/_partials/inner.md": "i",
        "_partials/target.md": "t",
        "_partials/lang/py.md": "p",
        "_skills/workflow-review/SKILL.md": "s",
        "_skills/workflow-review/checklist.md": "c",
        "_skills/workflow-review/refs/deep.md": "d",
        "lang/python.md": "d",
        "index.md": "d",
        "guide.yaml": "flags: {}\n",
    }
    layout = snapshot(tmp_path, files).layout
    assert layout.commands == {"review": "_commands/review.md", "notes": "_commands/notes.mustache", "workflow/phase": "_commands/workflow/phase.md"}
    assert layout.skills == {"workflow-review": "_skills/workflow-review/SKILL.md"}
    assert layout.members == {
        ("workflow-review", "checklist.md"): "_skills/workflow-review/checklist.md",
        ("workflow-review", "refs/deep.md"): "_skills/workflow-review/refs/deep.md",
    }
    assert layout.partials == {
        "top": "_commands/_partials/top.md",
        "inner": "_commands/workflow/_partials/inner.md",
        "target": "_partials/target.md",
        "lang/py": "_partials/lang/py.md",
    }
    assert layout.documents == {"lang/python": "lang/python.md", "index": "index.md"}


@pytest.mark.parametrize("rel", ["_x.md", ".x.md", "lang/_x.md", "lang/.x.md", "_private/x.md", ".hidden/x.md", "lang/_sub/x.md", "lang/.git/x.md"])
def test_c2_names_starting_with_underscore_or_dot_are_never_documents(tmp_path, rel):
    snap = snapshot(tmp_path, {rel: "secret", "lang/python.md": "d"})
    assert snap.layout.documents == {"lang/python": "lang/python.md"}
    assert snap.document(rel.rsplit(".", 1)[0]) is None


def test_c2_addresses_of_each_kind(tmp_path):
    snap = snapshot(tmp_path, {
        "_commands/workflow/phase.md": "p",
        "_skills/workflow-review/SKILL.md": "s",
        "_skills/workflow-review/checklist.md": "c",
        "lang/python.md": "d",
    })
    assert snap.command("workflow/phase").uri == "guide://_workflow/phase"
    assert snap.skill("workflow-review").uri == "guide://$workflow-review"
    assert snap.member("workflow-review", "checklist.md") == "_skills/workflow-review/checklist.md"
    assert snap.member("workflow-review", "missing.md") is None
    assert snap.document("lang/python") == "lang/python.md"
    assert snap.command("phase") is None and snap.skill("checklist") is None


@pytest.mark.parametrize("name", ["Review", "-review", "review-", "code--review", "code_review", "a" * 65])
def test_c2_invalid_skill_folder_names(tmp_path, name):
    snap = snapshot(tmp_path, {f"_skills/{name}/SKILL.md": "s", f"_skills/{name}/notes.md": "n"})
    assert snap.every("skill") == [] and snap.layout.members == {}
    [(path, line, form, field, message)] = problems_of(snap)
    assert path == f"_skills/{name}/SKILL.md" and f"skill folder name {name!r}" in message


def test_c2_longest_valid_skill_name(tmp_path):
    assert [s.name for s in snapshot(tmp_path, {f"_skills/{'a' * 64}/SKILL.md": "s"}).every("skill")] == ["a" * 64]


def test_c2_one_name_defined_twice(tmp_path):
    snap = snapshot(tmp_path, {"_commands/a.md": "1", "_commands/a.mustache": "2"})
    assert any("command 'a' is also defined by" in p.message for p in report(snap)[0])


def test_c4_skill_name_must_equal_its_folder(tmp_path):
    snap = snapshot(tmp_path, {"_skills/review/SKILL.md": "---\ndescription: d\nname: reviews\n---\nb\n"})
    assert problems_of(snap) == [("_skills/review/SKILL.md", 3, None, None, "skill `name` 'reviews' must equal its folder name 'review'")]


# Frontmatter


@pytest.mark.parametrize(
    "text, line, says",
    [
        ("---\ndescription: ok\nusage: a: b\n---\nbody\n", 3, "not valid YAML"),
        ("---\ndescription: ok\n\n\tbad: tab\n---\nbody\n", 4, "not valid YAML"),
        ("---\ndescription: never closed\n", 1, "never closed"),
        ("---\n- a list\n---\nbody\n", 2, "must be a YAML mapping"),
    ],
)
def test_c5_frontmatter_errors_name_the_line(tmp_path, text, line, says):
    snap = snapshot(tmp_path, {"_commands/a.md": text})
    [(path, found_line, _, _, message)] = problems_of(snap)
    assert (path, found_line) == ("_commands/a.md", line) and says in message
    assert snap.problems(snap.command("a"))


def test_c5_file_that_is_not_utf8(tmp_path):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands/a.md").write_bytes(b"---\ndescription: \xff\n---\n")
    assert problems_of(Docroot(tmp_path).build()) == [("_commands/a.md", None, None, None, "file is not UTF-8 text (byte 18 is 0xff)")]


def test_c5_crlf_line_endings_are_read(tmp_path):
    (tmp_path / "_commands").mkdir()
    text = "---\r\ndescription: CRLF\r\nelicitation:\r\n  f:\r\n    message: m\r\n    schema: {type: object, properties: {x: {type: strin}}}\r\n---\r\nb\r\n"
    (tmp_path / "_commands/a.md").write_bytes(text.encode())
    snap = Docroot(tmp_path).build()
    assert snap.command("a").description == "CRLF"
    assert [(p.line, p.field) for p in report(snap)[0]] == [(6, "x")]


def test_c5_byte_order_mark_before_frontmatter(tmp_path):
    (tmp_path / "_commands").mkdir()
    text = "\ufeff---\ndescription: BOM\nelicitation:\n  f:\n    message: m\n    schema: {type: object, properties: {x: {type: string}}}\n---\nBody\n"
    (tmp_path / "_commands/a.md").write_bytes(text.encode())
    snap = Docroot(tmp_path).build()
    entry = snap.command("a")
    assert entry.description == "BOM" and [f.id for f in entry.forms.forms] == ["f"]
    assert "elicitation" not in snap.parsed(entry.path).body


def test_c5_form_errors_point_at_the_key(tmp_path):
    text = "---\ndescription: d\nelicitation:\n  f:\n    message: m\n    schema:\n      type: object\n      properties:\n        x:\n          type: strin\n---\nb\n"
    [(path, line, form, field, message)] = problems_of(snapshot(tmp_path, {"_commands/a.md": text}))
    assert (path, line, form, field) == ("_commands/a.md", 10, "f", "x") and "'strin'" in message


def test_c5_near_miss_frontmatter_key_is_an_error_naming_the_key(tmp_path):
    snap = snapshot(tmp_path, {"_skills/s/SKILL.md": "---\ndescription: d\nnmae: s\n---\nb\n"})
    [(path, line, _, _, message)] = problems_of(snap)
    assert (path, line) == ("_skills/s/SKILL.md", 3) and "`nmae`; did you mean `name`?" in message


def test_c5_stranger_frontmatter_key_is_a_note(tmp_path):
    snap = snapshot(tmp_path, {"_commands/a.md": "---\ndescription: d\nnmae: x\n---\nb\n"})
    assert problems_of(snap) == []
    [note] = report(snap)[1]
    assert (note.path, note.line) == ("_commands/a.md", 3) and "`nmae`" in note.message


def test_c5_source_on_a_skill_is_an_error(tmp_path):
    text = command(field="phase").replace("{type: string}", "{type: string, source: workflow-phases}")
    snap = snapshot(tmp_path, {"guide.yaml": "workflow: {phases: [a, b]}\n", "_skills/s/SKILL.md": text, "_commands/c.md": text})
    assert [(p[0], p[3]) for p in problems_of(snap)] == [("_skills/s/SKILL.md", "phase")]


# C10 configuration


@pytest.mark.parametrize(
    "config, line, says",
    [
        ("flags: {}\nworkflows: {}\n", 2, "unknown key `workflows`"),
        ("flags: [a]\n", 1, "`flags` must be a mapping"),
        ("workflow:\n  phases: [a, a]\n", 2, "distinct phase names"),
        ("flags:\n  a: [b\n", 3, "not valid YAML"),
        ("clients:\n  - name: claude-code\n  - name: acme\n    form: hidden\n", 3, "`clients` entry 2: unknown key `form`; did you mean `forms`?"),
        ("clients: {claude-code: {}}\n", 1, "`clients` must be a list of clients"),
    ],
)
def test_c10_guide_yaml_errors(tmp_path, config, line, says):
    [(path, found_line, _, _, message)] = problems_of(snapshot(tmp_path, {"guide.yaml": config}))
    assert (path, found_line) == ("guide.yaml", line) and says in message


# C4 requires-*, includes, aliases, args


@pytest.mark.parametrize("requires, applies", [("data", True), ("platform", False), ("[platform, data]", True), ("[platform]", False)])
def test_c4_requires_on_an_entrypoint(tmp_path, requires, applies):
    gate = f"---\nrequires-team: {requires}\n---\nb\n"
    snap = snapshot(tmp_path, {"guide.yaml": "flags: {team: data}\n", "_commands/gated.md": gate, "_skills/gated/SKILL.md": gate})
    assert (snap.command("gated") is not None) is applies
    assert (snap.skill("gated") is not None) is applies
    assert [c.name for c in snap.every("command")] == (["gated"] if applies else [])
    assert [s.name for s in snap.every("skill")] == (["gated"] if applies else [])


@pytest.mark.parametrize("flags", ["{}", "{workflow: 1}", "{workflow: 'true'}"])
def test_c4_requires_a_flag_that_is_missing_or_of_another_kind(tmp_path, flags):
    snap = snapshot(tmp_path, {"guide.yaml": f"flags: {flags}\n", "_commands/gated.md": "---\nrequires-workflow: true\n---\nb\n"})
    assert snap.command("gated") is None


@pytest.mark.parametrize("team, contributes", [("data", True), ("platform", False)])
def test_c4_requires_on_a_partial(tmp_path, team, contributes):
    partial = command(form="notes", field="warehouse", head="requires-team: data\n", body="Data notes.")
    snap = snapshot(tmp_path, {
        "guide.yaml": f"flags: {{team: {team}}}\n",
        "_partials/notes.md": partial,
        "_commands/release.md": command(form="main", field="label", head="includes: [notes]\n"),
    })
    forms = [f.id for f in snap.command("release").forms.forms]
    assert forms == (["main", "notes"] if contributes else ["main"])
    assert (snap.partial_body("notes") is not None) is contributes


def test_c5_includes_join_forms_in_order(tmp_path):
    snap = snapshot(tmp_path, {
        "_partials/a.md": command(form="fa", field="xa"),
        "_partials/b.md": command(form="fb", field="xb"),
        "_commands/c.md": command(form="own", field="x", head="includes: [b, a]\n"),
    })
    entry = snap.command("c")
    assert [f.id for f in entry.forms.forms] == ["own", "fb", "fa"]
    assert snap.problems(entry) == ()
    body = snap.parsed(entry.path).body
    assert "{{" not in body and "Body." in body


def test_c5_includes_naming_an_unknown_partial(tmp_path):
    snap = snapshot(tmp_path, {"_commands/c.md": "---\ndescription: d\nincludes: [missing]\n---\nb\n"})
    assert problems_of(snap) == [("_commands/c.md", 3, None, None, "`includes` names unknown partial 'missing'")]


def test_c5_duplicate_field_across_command_and_partial_is_located_in_the_partial(tmp_path):
    snap = snapshot(tmp_path, {
        "_partials/p.md": command(form="other", field="x"),
        "_commands/c.md": command(form="own", field="x", head="includes: [p]\n"),
    })
    [(path, line, form, field, message)] = problems_of(snap)
    assert (path, line, form, field) == ("_partials/p.md", 8, "other", "x") and "also declared by form 'own'" in message


def test_c3_aliases_resolve_to_the_command(tmp_path):
    snap = snapshot(tmp_path, {"_commands/review.md": "---\naliases: [cr, rv]\n---\nb\n"})
    assert snap.command("cr").name == snap.command("rv").name == "review"
    assert snap.command("crx") is None


def test_c3_alias_of_a_gated_command_does_not_resolve(tmp_path):
    snap = snapshot(tmp_path, {"_commands/review.md": "---\naliases: [cr]\nrequires-team: data\n---\nb\n"})
    assert snap.command("cr") is None


def test_c4_args_naming_no_field(tmp_path):
    snap = snapshot(tmp_path, {"_commands/c.md": command(field="phase", head="args: [phase, stage]\n")})
    assert problems_of(snap) == [("_commands/c.md", 2, None, "stage", "`args` names 'stage', which no form declares")]


def test_c5_broken_entrypoint_is_unusable_and_others_are_not(tmp_path):
    snap = snapshot(tmp_path, {"_commands/bad.md": command(field="_x"), "_commands/good.md": command()})
    assert snap.problems(snap.command("bad")) and snap.problems(snap.command("good")) == ()


# Caching


def test_c2_edited_file_is_re_read_after_invalidate_and_others_are_not(tmp_path, monkeypatch):
    write(tmp_path, "_commands/a.md", "---\ndescription: one\n---\nb\n")
    write(tmp_path, "_commands/b.md", "---\ndescription: two\n---\nb\n")
    parsed = []
    real_split = filework_module.split
    monkeypatch.setattr(filework_module, "split", lambda text: parsed.append(text) or real_split(text))
    docroot = Docroot(tmp_path)
    assert docroot.build().command("a").description == "one" and len(parsed) == 1  # parsed on first use only
    write(tmp_path, "_commands/a.md", "---\ndescription: edited\n---\nb\n")
    assert docroot.build().command("a").description == "one"
    docroot.invalidate()
    assert docroot.build().command("a").description == "edited"
    assert docroot.build().command("b").description == "two"
    docroot.invalidate([tmp_path / "_commands" / "a.md"])
    assert docroot.build().command("b").description == "two"
    assert len(parsed) == 3 and "edited" in parsed[1] and "two" in parsed[2]


def test_c2_an_edit_named_by_the_watcher_is_re_read_even_with_the_same_size_and_time(tmp_path):
    path = write(tmp_path, "_commands/a.md", "---\ndescription: one\n---\nb\n")
    docroot = Docroot(tmp_path)
    assert docroot.build().command("a").description == "one"
    stat = path.stat()
    path.write_text("---\ndescription: two\n---\nb\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    docroot.invalidate([path])
    assert docroot.build().command("a").description == "two"


def test_c2_a_new_file_named_as_an_edit_still_appears(tmp_path):
    write(tmp_path, "_commands/a.md", "a\n")
    docroot = Docroot(tmp_path)
    assert docroot.build().command("b") is None
    new = write(tmp_path, "_commands/b.md", "b\n")
    docroot.invalidate([new])
    assert docroot.build().command("b") is not None


def test_c2_new_and_deleted_files_after_invalidate(tmp_path):
    write(tmp_path, "_commands/a.md", "a")
    docroot = Docroot(tmp_path)
    assert [c.name for c in docroot.build().every("command")] == ["a"]
    write(tmp_path, "_commands/b.md", "b")
    (tmp_path / "_commands/a.md").unlink()
    docroot.invalidate()
    assert [c.name for c in docroot.build().every("command")] == ["b"]


def test_c2_a_file_removed_between_scan_and_read_does_not_break_the_snapshot(tmp_path, monkeypatch):
    write(tmp_path, "_commands/a.md", "a\n")
    write(tmp_path, "_commands/gone.md", "g\n")
    real_scan = folder_module.scan

    def scan_then_remove(root, *limits):
        layout = real_scan(root, *limits)
        (tmp_path / "_commands" / "gone.md").unlink()
        return layout

    monkeypatch.setattr(folder_module, "scan", scan_then_remove)
    snap = Docroot(tmp_path).build()
    assert snap.parsed(snap.command("a").path).body == "a\n"
    assert snap.problems(snap.command("gone"))[0].message == "file is gone"


def test_c2_plain_text_json_and_yaml_files_are_documents_and_other_files_are_not(tmp_path):
    snap = snapshot(tmp_path, {
        "notes/on-call.txt": "t",
        "data/limits.json": "{}",
        "data/owners.yaml": "a: 1",
        "data/teams.yml": "b: 2",
        "data/logo.png": "not text",
        "scripts/run.py": "print()",
        "guide.yaml": "flags: {}\n",
        "lang/python.md": "d",
    })
    assert snap.layout.documents == {
        "notes/on-call": "notes/on-call.txt",
        "data/limits": "data/limits.json",
        "data/owners": "data/owners.yaml",
        "data/teams": "data/teams.yml",
        "lang/python": "lang/python.md",
    }
    assert problems_of(snap) == []


def test_c2_two_documents_with_one_address_are_an_error(tmp_path):
    snap = snapshot(tmp_path, {"data/limits.json": "{}", "data/limits.md": "# Limits"})
    assert problems_of(snap) == [("data/limits.md", None, None, None, "document 'data/limits' is also defined by data/limits.json")]
