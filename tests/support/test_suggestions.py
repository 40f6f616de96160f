"""The closest-name suggestions (support/text.py) and the hints for unrecognized options (option_specs.py)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from pytest_ttsbench.support.option_specs import OPTIONS_OF_EXTRAS, ours_to_explain, unknown_option_hints
from pytest_ttsbench.support.text import closest_names, did_you_mean

OWN = ["--tts-engine", "--tts-results", "--tts-audio-dir", "--tts-baseline", "--tts-shard", "--tts-pack"]
names = st.text(alphabet=string.ascii_lowercase + "-_", min_size=3, max_size=14)


def _typo(name: str, index: int, kind: int) -> str:
    """One keyboard slip at ``index``: a letter dropped, doubled, or swapped with the next."""
    index %= len(name) - 1
    if kind == 0:
        return name[:index] + name[index + 1 :]
    if kind == 1:
        return name[:index] + name[index] + name[index:]
    return name[:index] + name[index + 1] + name[index] + name[index + 2 :]


def test_the_closest_name_is_suggested() -> None:
    assert did_you_mean("espek", ["espeak", "piper", "replay"]) == "did you mean 'espeak'?"
    assert did_you_mean("zzzzzz", ["espeak", "piper"]) == ""
    assert closest_names("yeras", ["percentages", "years"])[0] == "years"


@given(st.lists(names, min_size=1, max_size=8, unique=True), st.integers(0, 100), st.integers(0, 2), st.data())
def test_a_one_slip_typo_of_a_long_name_suggests_a_name_at_least_as_close(
    known: list[str], index: int, kind: int, data: st.DataObject
) -> None:
    """Whatever the names, a typo never goes without a suggestion, and the one given is known and
    no farther from the typo than the name it came from."""
    import difflib

    meant = data.draw(st.sampled_from(known))
    typo = _typo(meant, index, kind)
    if typo in known:
        return
    suggested = closest_names(typo, known)
    assert suggested, (typo, known)
    assert set(suggested) <= set(known)

    def score(name: str) -> float:
        return difflib.SequenceMatcher(None, typo, name).ratio()

    assert score(suggested[0]) >= score(meant) or meant in suggested


@given(st.sampled_from(OWN), st.integers(0, 100), st.integers(0, 2), st.sampled_from(["", "=x"]))
def test_every_slip_in_our_option_names_gets_a_hint(flag: str, index: int, kind: int, value: str) -> None:
    name = flag.removeprefix("--tts-")
    typo = "--tts-" + _typo(name, index, kind)
    if typo in OWN:
        return
    [hint] = unknown_option_hints([typo + value], OWN)
    assert hint.startswith(f"{typo}: did you mean '--tts-"), hint


def test_option_hints_cover_spellings_and_extras() -> None:
    assert unknown_option_hints(["--tts-engnie=espeak"], OWN) == ["--tts-engnie: did you mean '--tts-engine'?"]
    assert unknown_option_hints(["--tts_results"], OWN) == ["--tts_results: did you mean '--tts-results'?"]
    assert unknown_option_hints(["--ttsengine"], OWN) == ["--ttsengine: did you mean '--tts-engine'?"]
    assert unknown_option_hints(["--tts-qqqqqqqq"], OWN) == [
        "--tts-qqqqqqqq: not an option of pytest-ttsbench (see pytest --help)"
    ]
    for flag, extra in OPTIONS_OF_EXTRAS.items():
        [hint] = unknown_option_hints([f"{flag}=report.html"], OWN)
        assert f'pip install "pytest-ttsbench[{extra}]"' in hint
    assert unknown_option_hints(["--somebody-elses", "-x", "path"], OWN) == [], "not ours to explain"


ARGUMENTS = st.one_of(
    st.text(max_size=20),
    st.builds(lambda dashes, name: dashes + name, st.sampled_from(["-", "--", "---"]), st.text(max_size=16)),
    st.builds(lambda tts, rest: f"--{tts}{rest}", st.sampled_from(["tts", "TTS", "Tts", "tts-", "tts_"]), names),
    st.builds(
        lambda flag, value: flag + value, st.sampled_from(sorted(OPTIONS_OF_EXTRAS)), st.sampled_from(["", "=x"])
    ),
)


@given(ARGUMENTS)
def test_the_cheap_check_keeps_every_argument_a_hint_explains(argument: str) -> None:
    """The plugin parses the command line a second time only when ``ours_to_explain`` holds for an
    argument (plugin.py); no argument the hints would explain may be passed over by it."""
    assert bool(unknown_option_hints([argument], OWN)) == ours_to_explain(argument)
