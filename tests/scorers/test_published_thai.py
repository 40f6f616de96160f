"""The ``published`` keyword protocol gives exactly the Thai keyword bench's own verdicts.

The harness, ``eval_keyword.py`` (wayu-research/thai-tts-eval, CC BY 4.0), is read from
``../shared/data/thai-tts-eval`` and imported by path; it is never copied here. Its
``keyword_correct`` and our published scorer judge the same hypothesis-generated transcripts and
items (Thai letters, marks in any order, sara am composed and decomposed, ``ๆ`` with and without
spaces, zero-width and other default-ignorable characters, digits in both scripts, Latin case,
whitespace), the recorded Thai transcripts under ``tests/``, and what ``ttsbench rescore --protocol
published`` gives for them. Where the harness's behaviour is its own (``ๆ`` repeating the whole
run before it, sara am typed with a tone mark inside), the published protocol must keep it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.cli import main
from pytest_ttsbench.pipeline.protocol_scoring import scorers_by_protocol
from pytest_ttsbench.scorers.base import ScoreContext

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / ".." / "shared" / "data" / "thai-tts-eval" / "eval_keyword.py"
TH = ScoreContext(language="th")
PUBLISHED = scorers_by_protocol("keyword")["published"]
STRICT = scorers_by_protocol("keyword")["strict"]


def _harness() -> ModuleType:
    if not HARNESS.is_file():
        pytest.skip(f"the Thai keyword bench's harness is not at {HARNESS} (../shared is absent)")
    spec = importlib.util.spec_from_file_location("thai_keyword_bench_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    return _harness()


def _agree(harness: ModuleType, transcript: str, expect: dict[str, Any]) -> None:
    theirs, _ = harness.keyword_correct(transcript, {"expected": expect["expected"], **expect})
    ours = PUBLISHED.score(transcript, expect, TH)
    assert (ours.outcome == "correct") == theirs, (transcript, expect, ours.explain())
    assert ours.outcome in ("correct", "wrong")


# --- generated transcripts and items ------------------------------------------------------------

CONSONANTS = "กขคงจชซดตทนบปผพฟมยรลวสหอฮ"
LEADING_VOWELS = "เแโใไ"
FOLLOWING_VOWELS = "ะาๅ"
MARKS = "\u0e31\u0e34\u0e35\u0e36\u0e37\u0e38\u0e39\u0e47\u0e48\u0e49\u0e4a\u0e4b\u0e4c\u0e4d\u0e3a"
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u180e", "\u2061"]
SPACES = [" ", "  ", "\t", "\u00a0", "\u3000", "\n"]
SARA_AM_SPELLINGS = ["ำ", "ํา", "่ำ", "่ํา", "ํ่า", "ำ่", "้ำ", "ํ้า"]

syllable = st.builds(
    lambda lead, consonant, marks, tail: lead + consonant + "".join(marks) + tail,
    st.sampled_from(["", *LEADING_VOWELS]),
    st.sampled_from(CONSONANTS),
    st.lists(st.sampled_from(MARKS), max_size=3),
    st.sampled_from(["", *FOLLOWING_VOWELS, *SARA_AM_SPELLINGS, "ง", "น", "ม"]),
)
atom = st.one_of(
    syllable,
    syllable,
    st.sampled_from(["ๆ", " ๆ", "ๆ ", " ๆ "]),
    st.sampled_from(INVISIBLE),
    st.sampled_from(SPACES),
    st.sampled_from(["เเ", "ฯ", "฿"]),
    st.text(alphabet="0123456789๐๑๒๓๔๕๖๗๘๙", min_size=1, max_size=4),
    st.text(alphabet="abcdeABCDEßİ", min_size=1, max_size=4),
)
texts = st.lists(atom, max_size=8).map("".join)


def _respelled(draw: st.DrawFn, text: str) -> str:
    """``text`` typed another way: digits in the other script, case swapped, invisible characters
    or spaces inserted, sara am decomposed, two marks swapped. Each may or may not matter to the
    harness; the test only asks that both judges agree."""
    choices = draw(st.lists(st.sampled_from(["digits", "case", "insert", "sara am", "swap"]), max_size=3))
    for choice in choices:
        if choice == "digits":
            text = text.translate(str.maketrans("0123456789๐๑๒๓๔๕๖๗๘๙", "๐๑๒๓๔๕๖๗๘๙0123456789"))
        elif choice == "case":
            text = text.swapcase()
        elif choice == "insert" and text:
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from([*INVISIBLE, *SPACES])) + text[at:]
        elif choice == "sara am":
            text = text.replace("ำ", "ํา")
        elif choice == "swap" and len(text) > 1:
            at = draw(st.integers(0, len(text) - 2))
            if text[at] in MARKS and text[at + 1] in MARKS:
                text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
    return text


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A transcript and an item whose forms are often taken from it, respelled, so both verdicts occur."""
    transcript = draw(texts)
    forms = []
    for _ in range(draw(st.integers(1, 3))):
        if transcript and draw(st.booleans()):
            start = draw(st.integers(0, len(transcript) - 1))
            end = draw(st.integers(start + 1, len(transcript)))
            form = _respelled(draw, transcript[start:end])
        else:
            form = draw(texts)
        forms.append(form if form.strip() else "ก")
    expect: dict[str, Any] = {"expected": forms[0]}
    if forms[1:]:
        expect["alternates"] = forms[1:]
    return _respelled(draw, transcript), expect


@settings(max_examples=400, deadline=None)
@given(cases())
# The harness's own behaviour, which published must keep: ๆ repeats the whole run before it …
@example(("สิ่งต่างๆมากมาย", {"expected": "ต่างต่าง"}))
@example(("เด็ก ๆ เล่น", {"expected": "เด็กเด็ก"}))
# … and composes sara am only where nikhahit and sara aa are adjacent.
@example(("น้ำ", {"expected": "น\u0e4d\u0e49\u0e32"}))
@example(("น\u0e33\u0e49", {"expected": "น้ำ"}))
@example(("กรุง\u00adเทพ", {"expected": "กรุงเทพ"}))
def test_published_keyword_agrees_with_the_harness(case: tuple[str, dict[str, Any]]) -> None:
    transcript, expect = case
    _agree(_harness(), transcript, expect)


def test_the_harness_behaviour_is_kept_where_strict_differs(harness: ModuleType) -> None:
    # The harness's ๆ repeats สิ่งต่าง, so ต่างต่าง is not found; strict repeats the word ต่าง.
    assert PUBLISHED.score("สิ่งต่างๆมากมาย", {"expected": "ต่างต่าง"}, TH).outcome == "wrong"
    assert STRICT.score("สิ่งต่างๆมากมาย", {"expected": "ต่างต่าง"}, TH).outcome == "correct"
    # Sara am typed as nikhahit + tone + sara aa stays decomposed for the harness.
    assert PUBLISHED.score("น\u0e4d\u0e49\u0e32ค้าง", {"expected": "น้ำค้าง"}, TH).outcome == "wrong"
    assert STRICT.score("น\u0e4d\u0e49\u0e32ค้าง", {"expected": "น้ำค้าง"}, TH).outcome == "correct"
    assert not harness.keyword_correct("น\u0e4d\u0e49\u0e32ค้าง", {"expected": "น้ำค้าง"})[0]


# --- the recorded Thai transcripts, directly and through `ttsbench rescore` ------------------------

TRANSCRIPTS = ROOT / "tests" / "data" / "th-transcripts.jsonl"
ITEMS = {item.full_id: item for item in load_case_file(pack_file("th-keywords")).items}
ROWS = [json.loads(line) for line in TRANSCRIPTS.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", ROWS, ids=[f"{n}-{r['id']}" for n, r in enumerate(ROWS)])
def test_published_agrees_on_every_recorded_thai_transcript(harness: ModuleType, row: dict[str, str]) -> None:
    (target,) = ITEMS[row["id"]].targets
    _agree(harness, row["text"], dict(target.expect))


def _parametrized_thai_cases() -> list[tuple[str, dict[str, Any]]]:
    """(transcript, expect) of every Thai case the keyword unit tests list in their parametrizations."""
    import test_keyword  # tests/scorers, beside this file

    found = []
    for test in vars(test_keyword).values():
        for mark in getattr(test, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            names, values = mark.args[0], mark.args[1]
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            for value in values:
                value = getattr(value, "values", value)  # a pytest.param, or the bare values
                case = dict(zip(names, (value,) if len(names) == 1 else value, strict=True))
                context = case.get("context", TH)
                if "transcript" not in case or getattr(context, "language", "th") != "th":
                    continue
                expect = case.get("expect") or {"expected": case.get("expected") or case.get("keyword")}
                found.append((str(case["transcript"]), dict(expect)))
    return found


def test_published_agrees_on_every_thai_case_of_the_keyword_tests(harness: ModuleType) -> None:
    cases = _parametrized_thai_cases()
    assert len(cases) > 40
    for transcript, expect in cases:
        _agree(harness, transcript, expect)


def test_rescore_published_gives_the_harness_verdicts(
    harness: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    differ = 0
    rules: set[str] = set()
    for number, row in enumerate(ROWS):
        transcripts = tmp_path / f"row-{number}.jsonl"
        transcripts.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
        argv = ["rescore", str(pack_file("th-keywords")), "--transcripts", str(transcripts), "--json"]
        assert main([*argv, "--protocol", "published"]) == 0
        payload = json.loads(capsys.readouterr().out)
        (scored,) = [i for i in payload["items"] if i["id"] == row["id"]]
        (target,) = ITEMS[row["id"]].targets
        theirs, _ = harness.keyword_correct(row["text"], dict(target.expect))
        assert (scored["verdict"] == "correct") == theirs, (row, scored["verdict"])
        differ += scored["protocols"]["strict"]["verdict"] != scored["verdict"]
        rules |= {difference["rule"] for difference in payload["protocol_differences"]}
    # The strict rules move some of them, and the tally names the rule behind each, as for CN-NewsTTS.
    assert differ
    assert rules and all(rule.startswith(("keyword", "ๆ", "an amount")) for rule in rules), rules
