"""A not-found address suggests the one it probably meant, by the near-miss rule (C3)."""

import pytest

from guide.docroot.folder import Docroot
from guide.errors import NotFoundError
from guide.examples import DOCROOT
from guide.routes.lookup import AddressRead, PromptRead, resolve


def _not_found(uri: str) -> str:
    with pytest.raises(NotFoundError) as info:
        resolve(Docroot(DOCROOT).build(), AddressRead(uri))
    return str(info.value)


@pytest.mark.parametrize(
    ("uri", "suggestion"),
    [
        ("guide://lang/python.md", "did you mean guide://lang/python?"),
        ("guide://lang/pyhton", "did you mean guide://lang/python?"),
        ("guide://lang/pyhton.md", "did you mean guide://lang/python?"),
        ("guide://review", "did you mean guide://_review?"),
        ("guide://workflow-review", "did you mean guide://$workflow-review?"),
        ("guide://_reveiw", "did you mean review?"),
        ("guide://_Review?mode=branch", "did you mean review?"),
        ("guide://_reveiw/extra?mode=branch", "did you mean review?"),
        ("guide://_workflow/phsae/planning", "did you mean workflow/phase?"),
        ("guide://_help/reveiw", "did you mean review?"),
        ("guide://_workflow-review", "did you mean guide://$workflow-review?"),
        ("guide://$workflow-reveiw", "did you mean guide://$workflow-review?"),
        ("guide://$review", "did you mean guide://_review?"),
        ("guide://$workflow-review/checklst.md", "did you mean guide://$workflow-review/checklist.md?"),
        ("guide://$workflow-reveiw/checklist.md", "did you mean guide://$workflow-review/checklist.md?"),
    ],
)
def test_a_near_miss_gets_a_did_you_mean(uri, suggestion):
    message = _not_found(uri)
    assert message.endswith(suggestion), message


@pytest.mark.parametrize("uri", ["guide://zzz", "guide://_zzz", "guide://$zzz", "guide://$workflow-review/zzz.md", "guide://_ab"])
def test_a_stranger_gets_the_help_hint_and_no_guess(uri):
    message = _not_found(uri)
    assert "did you mean" not in message
    assert message.endswith("guide://_help lists the commands, skills and documents")


def test_a_prompt_route_with_a_typo_suggests_the_command():
    with pytest.raises(NotFoundError, match=r"no command reveiw; did you mean review\?"):
        resolve(Docroot(DOCROOT).build(), PromptRead(":reveiw --mode branch"))
