"""A request's checks against backtracking patterns share one time budget (issue 25, finding 7), measured with the server's clock."""

from support.forms import declared, form

from guide.forms.declare import EMPTY
from guide.forms.fields import declare_field
from guide.forms.keywords import request_budget
from guide.forms.values import problems

SLOW = "(?!(a|aa)+b).*"  # a lookahead: only the backtracking engine runs it


class Clock:
    """A clock that moves only when told: each reading advances it by `step` seconds."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _field(pattern: str):
    found, issues = declare_field("x", {"type": "string", "pattern": pattern}, allow_source=False, phases=())
    assert issues == []
    return found


def test_values_pass_while_the_budget_lasts_and_are_refused_at_once_after():
    checked = _field(SLOW)
    with request_budget(Clock(step=0.1), seconds=0.5):  # each match takes 0.1 s as this clock sees it
        answers = [problems(checked, "aaac") for _ in range(5)]
        refused = problems(checked, "aaac")
    assert answers == [[]] * 5
    assert refused == ["'aaac' is refused: checking this read's values against their patterns took too long in all; give fewer or simpler values"]


def test_without_a_request_budget_each_value_has_its_own():
    checked = _field(SLOW)
    assert all(problems(checked, "aaac") == [] for _ in range(20))


def test_a_linear_pattern_never_spends_the_budget():
    checked = _field("[a-z]+")
    with request_budget(Clock(step=10.0), seconds=0.0):
        assert problems(checked, "abc") == []


def test_a_form_set_says_whether_its_checks_may_be_slow():
    slow = declared({"f": form({"a": {"type": "string", "pattern": SLOW}}, ["a"])})
    fast = declared({"f": form({"a": {"type": "string", "pattern": "[a-z]+"}}, ["a"])})
    assert slow.slow_checks and not fast.slow_checks and not EMPTY.slow_checks
