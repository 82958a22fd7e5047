"""Shared test configuration: hardware tests are opt-in (`--hardware`)."""

from __future__ import annotations

import os

import pytest
from hypothesis import Phase, settings

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# mutmut (which sets MUTANT_UNDER_TEST) reruns the tests that reach a mutated function
# once per mutant: property tests run few examples there, derandomized so a mutant's
# verdict is the same on every run, and a failure is not shrunk (only pass or fail
# counts there; shrinking ran past mutmut's time limit) (docs/mutation.md).
UNDER_MUTMUT = "MUTANT_UNDER_TEST" in os.environ
MUTMUT_EXAMPLES = 20
MUTMUT_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
if UNDER_MUTMUT:
    settings.register_profile("mutmut", deadline=None, max_examples=MUTMUT_EXAMPLES,
                              derandomize=True, database=None, phases=MUTMUT_PHASES)
    settings.load_profile("mutmut")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hardware", action="store_true", default=False,
                     help="run tests that need real pads, a pad board or a camera")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if UNDER_MUTMUT:
        _few_examples(items)
    if config.getoption("--hardware"):
        return
    skip = pytest.mark.skip(reason="needs real hardware: run with --hardware")
    for item in items:
        if "hardware" in item.keywords:
            item.add_marker(skip)


def _few_examples(items: list[pytest.Item]) -> None:
    """Cap the examples of tests whose own @settings ask for more (under mutmut only)."""
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > MUTMUT_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own, max_examples=MUTMUT_EXAMPLES, derandomize=True, database=None,
                deadline=None, phases=MUTMUT_PHASES)
