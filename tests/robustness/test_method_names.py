"""A name that is a method of a value (`{{kwargs.get}}`, `{{flags.tags.clear}}`) renders as a missing name.

The Mustache engine falls back to attributes and calls what it finds: found by
the YAML fuzzing (a flag named `items`), `{{#flags.items}}` failed the read with
"Guide failed unexpectedly", and `{{flags.tags.clear}}` emptied the `tags` flag
for every later read of every client.
"""

from support.files import write_files

FILES = {
    "guide.yaml": "flags:\n  tags: [a, b]\n",
    "_commands/clear.md": "---\ndescription: clears\n---\n[{{flags.tags.clear}}][{{flags.tags.pop}}]\n",
    "_commands/get.md": "---\ndescription: gets\n---\n[{{kwargs.get}}][{{#flags.items}}x{{/flags.items}}][{{flags.__class__}}]\n",
    "_commands/tags.md": "---\ndescription: tags\n---\nTAGS {{#flags.tags}}{{.}} {{/flags.tags}}({{flags.tags.length}})\n",
}


async def test_method_names_render_empty_and_change_nothing(tmp_path, connect):
    root = write_files(tmp_path / "docroot", FILES)
    async with connect(root) as client:
        cleared = (await client.read_resource("guide://_clear"))[0].text
        got = (await client.read_resource("guide://_get"))[0].text
        tags = (await client.read_resource("guide://_tags"))[0].text
    assert (cleared, got) == ("[][]\n", "[][][]\n")
    assert tags == "TAGS a b (2)\n"
