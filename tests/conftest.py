"""The plugin's own tests: pytest's ``pytester`` fixture, loaded only when ``tests/`` is collected.

Shared helpers are imported by module name (``from result_rows import …``, ``from tts_providers
import …``): ``tests/support`` and ``tests/fakes`` are on the path through the ``pythonpath`` ini option.
"""

import os
from collections.abc import Callable, Iterator

# The plugin imports these libraries only when a run needs them. pytester's in-process runs drop
# every module first imported inside them when they end: numpy (under scipy and PyAV) cannot be
# loaded twice in one process, and httpx maps httpcore's exceptions by class, so a second copy of
# httpcore would raise classes httpx no longer recognizes. Importing them here keeps them loaded.
import av  # noqa: F401

# Babel resolves the aliases in its locale data by class (babel.localedata.Alias): data pickled
# under a copy of Babel dropped at a pytester run's end, merged by a later copy, fails with
# "'Alias' object has no attribute 'copy'". The plugin itself no longer loads Babel (the currency
# scorer reads a checked-in table); only tests do, as that table's oracle (tests/scorers), and
# importing it here keeps one copy loaded should such a test run inside a pytester run.
import babel.core
import babel.localedata
import babel.numbers  # noqa: F401

# httpx imports httpcore only when its first transport is built, and caches which httpcore
# exceptions it translates. Built inside a pytester run, that cache would name classes of an
# httpcore dropped at the run's end; a later connection error would then escape untranslated.
import httpcore  # noqa: F401
import hypothesis
import numpy  # noqa: F401
import pytest
import scipy.stats  # noqa: F401

# PyYAML's C loader (yaml._yaml) is loaded once per process and builds its nodes from the copy of
# PyYAML it first saw: a PyYAML first imported inside a pytester run, dropped at its end and
# imported again, gets nodes of classes it no longer knows ("could not determine a constructor for
# the tag None"). This suite's own run reads no YAML of ours (a plain pytest stays out of a
# configured project), so nothing else loads it here first.
import yaml  # noqa: F401

pytest_plugins = ["pytester"]

# In CI (CI set in the environment) the property tests draw a fixed set of examples: a submission
# is judged on what it changed, and a new counterexample found by a random search is reproduced
# and fixed (then pinned with @example) in a local run, which keeps searching at random.
hypothesis.settings.register_profile("ci", derandomize=True)
# The long local search of the boundary fuzz harness (tests/boundaries): `pytest tests/boundaries
# --hypothesis-profile=fuzz` draws FUZZ_EXAMPLES real runs per boundary instead of CI's handful.
hypothesis.settings.register_profile("fuzz", max_examples=200, deadline=None)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")


@pytest.fixture
def espeak_speaker() -> Iterator[Callable[[str], bytes]]:
    """Text → eSpeak NG's WAV of it (``en-us``, the built-in ``espeak`` profile's English voice).

    Fake providers answer with this speech, so a run through real ASR hears what the local engine says.
    """
    from pytest_ttsbench.config import EngineProfile
    from pytest_ttsbench.engines.base import SynthesisRequest
    from pytest_ttsbench.engines.registry import create_engine

    espeak = create_engine(EngineProfile(name="espeak", type="espeak", voice="en-us"))

    def speak(text: str) -> bytes:
        return espeak.synthesize(SynthesisRequest(text=text, language="en")).audio

    yield speak
    espeak.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After a run that included the oracle property tests, list the readings they let through.

    Here rather than in ``tests/scorers``: under xdist only the controller prints, and it loads
    the conftest of the directories named on the command line, not of those its workers collect.
    """
    from oracle_gaps import report_lines

    ran = any(
        "test_oracles.py" in getattr(report, "nodeid", "")
        for outcome, reports in terminalreporter.stats.items()
        if outcome != "deselected"
        for report in reports
    )
    if ran:
        terminalreporter.write_sep("=", "oracle expected failures (tests/support/oracle_gaps.py)")
        for line in report_lines():
            terminalreporter.write_line(line)
    _report_nemo_exclusions(terminalreporter)


def _report_nemo_exclusions(terminalreporter: pytest.TerminalReporter) -> None:
    """After a run that included a NeMo corpus test (``test_nemo_<language>.py``), list the pairs
    that language's scorer is not held to, with the reasons (``tests/data/nemo-exclusions/``)."""
    import re

    from nemo_corpus import report_lines as nemo_lines

    languages = sorted(
        {
            found.group(1)
            for outcome, reports in terminalreporter.stats.items()
            if outcome != "deselected"
            for report in reports
            if (found := re.search(r"test_nemo_(\w+)\.py", getattr(report, "nodeid", "")))
        }
    )
    if languages:
        terminalreporter.write_sep("=", "NeMo corpus pairs excluded (tests/data/nemo-exclusions/)")
        for line in nemo_lines(tuple(languages)):
            terminalreporter.write_line(line)
