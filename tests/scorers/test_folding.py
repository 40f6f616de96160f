"""The folding seam (``scorers/folding.py``): what it folds, and that no folded difference changes a verdict.

The invariance property drives every scorer of every language with the recorded transcripts of
``tests/data`` (and the English pack's own texts), then with the same transcript written with
differences nobody can hear: default-ignorable characters inserted anywhere, ASCII in its
full-width forms, Chinese characters in their Traditional forms, Thai marks typed in another
order and sara am decomposed, digits in another script. The verdict must not move.
"""

from __future__ import annotations

import importlib.util
import json
import random
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import opencc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.default_ignorables import DEFAULT_IGNORABLE_RANGES
from pytest_ttsbench.scorers.folding import fold_text, remove_default_ignorables
from pytest_ttsbench.scorers.registry import get_scorer

ROOT = Path(__file__).resolve().parents[2]
IGNORABLE = [chr(c) for start, end in DEFAULT_IGNORABLE_RANGES for c in range(start, min(end, start + 40) + 1)]


# --- the table of default-ignorable code points ---------------------------------------------------


def _generator() -> Any:
    script = ROOT / "scripts" / "gen_default_ignorables.py"
    spec = importlib.util.spec_from_file_location("gen_default_ignorables", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_the_unicode_property() -> None:
    generator = _generator()
    found = generator.from_icu() or generator.from_perl()
    if found is None:
        pytest.skip("neither PyICU nor Perl's Unicode::UCD is here to read Default_Ignorable_Code_Point from")
    ranges, source = found
    # The property changes little between Unicode versions; a newer source may only add to it.
    table = {c for start, end in DEFAULT_IGNORABLE_RANGES for c in range(start, end + 1)}
    assert table <= {c for start, end in ranges for c in range(start, end + 1)}, source
    if f"Unicode {unicodedata.unidata_version}" in source:
        assert list(DEFAULT_IGNORABLE_RANGES) == ranges, f"rerun scripts/gen_default_ignorables.py ({source})"


@pytest.mark.parametrize(
    "ch", ["\u00ad", "\u200b", "\u200c", "\u200d", "\u200e", "\u2060", "\ufeff", "\ufe0f", "\u034f", "\u061c"]
)
def test_invisible_characters_are_removed(ch: str) -> None:
    assert remove_default_ignorables(f"a{ch}b") == "ab"


@pytest.mark.parametrize("ch", [" ", "\u00a0", "-", "\u0e46", "\u0640", "\u0301", "a", "\u0e3a"])
def test_visible_characters_and_spaces_stay(ch: str) -> None:
    assert remove_default_ignorables(f"a{ch}b") == f"a{ch}b"


@pytest.mark.parametrize(
    ("text", "language", "folded"),
    [
        ("ＬＩＮＥ", "th", "LINE"),
        ("กรุง\u00adเทพฯ", "th", "กรุงเทพฯ"),
        ("น\u0e4d\u0e49\u0e32", "th", "น้ำ"),
        ("นำ\u0e49", "th", "น้ำ"),
        ("ก\u0e48\u0e34", "th", "ก\u0e34\u0e48"),
        ("๑,๐๐๐ บาท", "th", "1,000 บาท"),
        ("١٢٫٥", "ar", "12٫5"),
        ("兩比零 三減一 九零後", "zh", "两比零 三减一 九零后"),
        ("兩比零", "en", "兩比零"),
        ("１２３點５", "zh-TW", "123点5"),
        ("½ ㎞, 1¾ ｌ", "en", "½ km, 1¾ l"),
        ("x\u3164y", "en", "xy"),
    ],
)
def test_what_the_fold_does(text: str, language: str, folded: str) -> None:
    assert fold_text(text, language) == folded


@settings(max_examples=300, deadline=None)
@given(st.text(), st.sampled_from(["en", "ar", "zh", "th", "fr"]))
def test_the_fold_is_idempotent(text: str, language: str) -> None:
    once = fold_text(text, language)
    assert fold_text(once, language) == once
    assert remove_default_ignorables(once) == once


# --- no folded difference changes any scorer's verdict -------------------------------------------

FIXTURES = {
    "ar-transcripts.jsonl": ["ar-numerals"],
    "zh-transcripts.jsonl": ["zh-numerals", "zh-news"],
    "th-transcripts.jsonl": ["th-keywords"],
}


@cache
def _cases() -> list[tuple[str, str, dict[str, Any], ScoreContext]]:
    """(scorer, transcript, expect, context) for every recorded transcript and target, and the English texts."""
    found = []
    for fixture, packs in FIXTURES.items():
        items = {item.full_id: item for name in packs for item in load_case_file(pack_file(name)).items}
        for line in (ROOT / "tests" / "data" / fixture).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            item = items[row["id"]]
            for target in item.targets:
                context = ScoreContext(item.language, item.text, target.span)
                found.append((item.scorer, row["text"], dict(target.expect), context))
    for item in load_case_file(pack_file("en-numerals")).items:
        for target in item.targets:
            found.append((item.scorer, item.text, dict(target.expect), ScoreContext(item.language, item.text)))
    return found


@cache
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


@cache
def _traditional(ch: str) -> str:
    """``ch`` in its Traditional form where OpenCC folds that form back to ``ch``, else ``ch``."""
    form = str(opencc.OpenCC("s2t").convert(ch))
    return form if len(form) == 1 and _t2s().convert(form) == ch else ch


THAI_MARK_RANK = {
    **dict.fromkeys("\u0e31\u0e34\u0e35\u0e36\u0e37\u0e38\u0e39\u0e47", 0),
    **dict.fromkeys("\u0e4d\u0e4e", 1),
    **dict.fromkeys("\u0e48\u0e49\u0e4a\u0e4b", 2),
    **dict.fromkeys("\u0e3a\u0e4c", 3),
}
OTHER_DIGITS = ["๐๑๒๓๔๕๖๗๘๙", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９"]


def _shuffle_thai_marks(text: str, rng: random.Random) -> str:
    """Each run of Thai marks of different ranks in another order; sara am typed as nikhahit + sara aa."""
    text = text.replace("\u0e33", "\u0e4d\u0e32")
    out, run = [], []
    for ch in [*text, ""]:
        if ch in THAI_MARK_RANK:
            run.append(ch)
            continue
        if len({THAI_MARK_RANK[m] for m in run}) == len(run):
            rng.shuffle(run)
        out.extend(run)
        run.clear()
        out.append(ch)
    return "".join(out)


def _rewritten(text: str, language: str, rng: random.Random) -> str:
    """``text`` written with differences nobody can hear (see the module docstring)."""
    if language.startswith("zh"):
        text = "".join(_traditional(ch) if rng.random() < 0.5 else ch for ch in text)
    if language == "th":
        text = _shuffle_thai_marks(text, rng)
    digits = rng.choice(OTHER_DIGITS)
    text = "".join(
        digits[int(ch)]
        if ch.isascii() and ch.isdigit() and rng.random() < 0.5
        else chr(ord(ch) + 0xFEE0)
        if "!" <= ch <= "~" and rng.random() < 0.3
        else ch
        for ch in text
    )
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(IGNORABLE) + text[at:]
    return text


def _draw(language: str, data: st.DataObject) -> tuple[str, str, dict[str, Any], ScoreContext, random.Random]:
    """A recorded case of ``language`` and a seeded random source for rewriting it."""
    cases = [c for c in _cases() if c[3].language.startswith(language)]
    scorer_name, transcript, expect, context = data.draw(st.sampled_from(cases))
    return scorer_name, transcript, expect, context, random.Random(data.draw(st.integers(0, 2**32 - 1)))


def _same_outcome(scorer_name: str, context: ScoreContext, before: tuple[str, Any], after: tuple[str, Any]) -> None:
    """The scorer's verdict on (transcript, expect) ``before`` and ``after`` the rewrite is the same."""
    scorer = get_scorer(scorer_name)
    first, second = scorer.score(*before, context), scorer.score(*after, context)
    assert second.outcome == first.outcome, (scorer_name, before, after, first.explain(), second.explain())


@pytest.mark.parametrize("language", ["en", "ar", "zh", "th"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_unheard_differences_never_change_a_verdict(language: str, data: st.DataObject) -> None:
    scorer_name, transcript, expect, context, rng = _draw(language, data)
    rewritten = _rewritten(transcript, context.language, rng)
    _same_outcome(scorer_name, context, (transcript, expect), (rewritten, expect))


def _rewritten_value(key: str, value: Any, language: str, rng: random.Random) -> Any:
    """A field of ``expect`` rewritten the same way, except the names a scorer dispatches on."""
    if key == "type":
        return value
    if isinstance(value, str):
        return _rewritten(value, language, rng)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [_rewritten(v, language, rng) for v in value]
    return value


@pytest.mark.parametrize("language", ["ar", "zh", "th"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_expected_side_is_folded_the_same_way(language: str, data: st.DataObject) -> None:
    scorer_name, transcript, expect, context, rng = _draw(language, data)
    written = {key: _rewritten_value(key, value, context.language, rng) for key, value in expect.items()}
    _same_outcome(scorer_name, context, (transcript, expect), (transcript, written))
