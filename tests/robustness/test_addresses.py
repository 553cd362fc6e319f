"""Issue 10, item 11: the resource route and the `read_resource` tool read every address the same way (C3).

Both normalise an address as a URL (what FastMCP's client and the server's
resource model do), so `guide://lang/./python` and `GUIDE://lang/python` name the
document on both routes, and `guide:lang/python` (no `//`) names nothing on both.
"""

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from mcp import MCPError
from pydantic import AnyUrl, ValidationError
from support.fuzzing import fuzz

from guide import address
from guide.errors import GuideError

SPELLINGS = [
    ("guide://lang/python", "PYTHON\n"),
    ("guide://lang/./python", "PYTHON\n"),
    ("guide://lang/%2E/python", "PYTHON\n"),
    ("guide://lang/sub/../python", "PYTHON\n"),
    ("GUIDE://lang/python", "PYTHON\n"),
    ("Guide://_plain?x=1", "PLAIN 1 SHARED\n\n"),
    ("guide://_plain/./?x=%20y", "PLAIN  y SHARED\n\n"),
    ("guide://$tool-kit/./notes.md", "NOTES\n"),
    ("guide:lang/python", None),
    ("guide:/lang/python", None),
    ("guide://lang/../python", "PYTHON\n"),  # `lang` is the host part: `..` stops there
    ("guide://_nothing", None),
    ("http://lang/python", None),
]


async def _outcome(read) -> str | None:
    try:
        return await read()
    except (MCPError, GuideError):
        return None


@pytest.mark.parametrize(("uri", "expected"), SPELLINGS)
async def test_c3_the_resource_route_and_the_tool_agree_on_every_spelling(root, connect, uri, expected):
    async with connect(root) as client:

        async def by_resource():
            return (await client.read_resource(uri))[0].text

        async def by_tool():
            result = await client.call_tool("read_resource", {"uri": uri}, raise_on_error=False)
            if result.is_error:
                raise GuideError(result.content[0].text)
            return result.content[0].text

        assert await _outcome(by_resource) == await _outcome(by_tool) == expected


@pytest.mark.parametrize("uri", ["guide://_plain x", "lang/python", "guide://_a\x00b", "guide://[x", "guide://_a<b"])
async def test_c3_a_malformed_address_sent_as_typed_gets_the_tool_answer(root, connect, uri):
    async with connect(root) as client:
        with pytest.raises(MCPError) as error:
            await client.session.read_resource(uri)  # below FastMCP's client, which would refuse to send it
        result = await client.call_tool("read_resource", {"uri": uri}, raise_on_error=False)
    assert result.is_error and result.content[0].text == error.value.error.message
    assert error.value.error.message.endswith("is not a valid guide:// address")


def _target(uri: str):
    try:
        return address.parse(uri)
    except GuideError as error:
        return type(error)


ADDRESS_TEXT = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda scheme, body: scheme + body,
        st.sampled_from(["guide://", "GUIDE://", "guide:", "guide:/", "guide:///", "Guide://"]),
        st.text(alphabet=st.sampled_from(list("_$ab/.%2Ee?=&# \t:@[]\\é")), max_size=30),
    ),
)


@fuzz(300)
@given(uri=ADDRESS_TEXT)
def test_fuzz_c3_an_address_reads_the_same_as_the_text_a_client_sends_for_it(uri):
    try:
        sent = str(AnyUrl(uri))  # what FastMCP's client (and the server's resource model) make of it
    except ValidationError:
        assume(False)
    assert _target(uri) == _target(sent)
