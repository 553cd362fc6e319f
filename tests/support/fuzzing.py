"""The fuzzing budget: a few cases per fuzz test by default, `GUIDE_FUZZ_EXAMPLES=N` for a long run.

With N = 15000 the robustness fuzz tests run over 100,000 cases in all (see docs/security.md):

    GUIDE_FUZZ_EXAMPLES=15000 python -m pytest tests/robustness -k fuzz --hypothesis-show-statistics
"""

import os

from hypothesis import HealthCheck, settings

FUZZ_EXAMPLES = "GUIDE_FUZZ_EXAMPLES"


def fuzz(ci_examples: int) -> settings:
    """Hypothesis settings for a fuzz test: `ci_examples` cases, or `GUIDE_FUZZ_EXAMPLES` when set."""
    examples = int(os.environ.get(FUZZ_EXAMPLES) or ci_examples)
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    )
