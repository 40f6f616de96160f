"""The ``keyword`` scorer: matching rules, evidence, and the Thai case pack scored both ways."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from shipped_packs import pack_file

from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.keyword import KeywordScorer, canonicalize

ROOT = Path(__file__).resolve().parents[2]
CASE_FILE = pack_file("th-keywords")
TRANSCRIPTS = ROOT / "tests" / "data" / "th-transcripts.jsonl"

SCORER = KeywordScorer()
TH = ScoreContext(language="th")
EN = ScoreContext(language="en")


def score(transcript: str, expect: dict[str, Any], context: ScoreContext = TH) -> Any:
    """The verdict for an item whose text is the keyword itself: the whole transcript stands in its place."""
    if not context.text:
        context = ScoreContext(context.language, text=expect["expected"])
    return SCORER.score(transcript, expect, context)


# --- matching rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "expect", "context", "outcome"),
    [
        # Expected form as an exact substring.
        ("ผมใช้ไลน์ทุกวัน", {"expected": "ไลน์"}, TH, "correct"),
        # An alternate is as good as the expected form.
        ("ผมใช้ LINE ทุกวัน", {"expected": "ไลน์", "alternates": ["LINE"]}, TH, "correct"),
        # Case is folded on both sides.
        ("ผมใช้ line ทุกวัน", {"expected": "ไลน์", "alternates": ["LINE"]}, TH, "correct"),
        # Spaces inserted by the recognizer inside the keyword: matched space-free.
        ("ข้าว เหนียว มะม่วง อร่อย", {"expected": "ข้าวเหนียวมะม่วง"}, TH, "correct"),
        # Spaces in the keyword that the transcript leaves out: also matched space-free.
        ("ข้าวเหนียวมะม่วงอร่อย", {"expected": "ข้าว เหนียวมะม่วง"}, TH, "correct"),
        # No fuzzy matching: one letter off is wrong, however close.
        ("ผมใช้ไลฟ์ทุกวัน", {"expected": "ไลน์", "alternates": ["LINE"]}, TH, "wrong"),
        ("meet me on zoon", {"expected": "Zoom"}, EN, "wrong"),
        # Canonicalization does not make a keyword match a transcript missing part of it.
        ("ข้าวเหนียว", {"expected": "ข้าวเหนียวมะม่วง"}, TH, "wrong"),
        # Non-Thai languages still get NFC, zero-width removal, casefolding and spacing.
        ("Meet me on Zo\u200bom at noon", {"expected": "zoom"}, EN, "correct"),
        ("I said cafe\u0301", {"expected": "CAFÉ"}, EN, "correct"),
        ("I said cafe", {"expected": "café"}, EN, "wrong"),
    ],
)
def test_keyword_matching(transcript: str, expect: dict[str, Any], context: ScoreContext, outcome: str) -> None:
    assert score(transcript, expect, context).outcome == outcome


def test_correct_verdict_names_the_form_that_matched_and_how() -> None:
    verdict = score("ผมใช้ LINE ทุกวัน", {"expected": "ไลน์", "alternates": ["LINE"]})
    assert verdict.matched == ("LINE",)
    assert verdict.missing == ()
    assert verdict.heard == ("ผมใช้ line ทุกวัน",)
    assert verdict.extra == {"matched_form": "line", "spaces": "kept"}


def test_space_free_match_is_reported() -> None:
    verdict = score("ข้าว เหนียว มะม่วง", {"expected": "ข้าวเหนียวมะม่วง"})
    assert verdict.outcome == "correct"
    assert verdict.extra["spaces"] == "removed"


def test_wrong_verdict_lists_every_missing_form_and_the_canonical_transcript() -> None:
    expect = {"expected": "ไม้สัก", "alternates": ["ไม้ สัก"]}
    verdict = score("ตู้ไม่สัก\u200bตัวนี้", expect)
    assert verdict.outcome == "wrong"
    assert verdict.missing == ("ไม้สัก", "ไม้ สัก")
    assert verdict.matched == ()
    assert verdict.heard == ("ตู้ไม่สักตัวนี้",)
    assert verdict.extra["canonical_forms"] == ["ไม้สัก", "ไม้ สัก"]


def test_canonical_transcript_is_what_canonicalize_returns() -> None:
    transcript = "เเม่ซื้อ  ๓  ลูก ๆ"
    verdict = score(transcript, {"expected": "ไม่มี"})
    assert verdict.heard == (canonicalize(transcript, "th"),)


def test_shorter_mai_yamok_reading_is_shown_in_evidence() -> None:
    # ``กับเด็กๆ``: the documented canonical form repeats the whole run, the match needs the
    # reading that repeats only ``เด็ก``; the evidence shows both.
    verdict = score("เล่นกับเด็กๆทุกวัน", {"expected": "เด็ก ๆ"})
    assert verdict.outcome == "correct"
    assert verdict.heard == ("เล่นกับเด็กเล่นกับเด็กทุกวัน",)
    assert verdict.extra["reading"] == "เล่นกับเด็กเด็กทุกวัน"


@pytest.mark.parametrize(
    ("transcript", "expected", "outcome"),
    [
        # Each way of writing the repetition matches a keyword written with ๆ ...
        ("เด็กๆ เล่นน้ำ", "เด็ก ๆ", "correct"),
        ("เด็ก ๆ เล่นน้ำ", "เด็ก ๆ", "correct"),
        ("เด็กเด็กเล่นน้ำ", "เด็ก ๆ", "correct"),
        ("พวกเด็กๆเล่นน้ำ", "เด็ก ๆ", "correct"),
        # ... and one written out in full.
        ("พวกเด็กๆเล่นน้ำ", "เด็กเด็ก", "correct"),
        # A space in the keyword marks where the repeated word starts.
        ("ขอบคุณมากๆเลย", "ขอบคุณ มาก ๆ", "correct"),
        # Not over-firing: a word said once is not its repetition,
        ("เด็กเล่นน้ำ", "เด็ก ๆ", "wrong"),
        # ๆ repeats only what comes before it, once,
        ("ดีๆ", "ดีดีดี", "wrong"),
        ("ดีๆ", "ดีไหม", "wrong"),
        # a shorter reading never splits a leading vowel from its consonant,
        ("เที่ยวๆ", "เที่ยวที่ยว", "wrong"),
        # and a changed tone mark still fails through ๆ.
        ("ค้อยๆ เดิน", "ค่อย ๆ", "wrong"),
    ],
)
def test_mai_yamok_matching(transcript: str, expected: str, outcome: str) -> None:
    assert score(transcript, {"expected": expected}).outcome == outcome


def test_forms_empty_after_canonicalization_are_rejected_and_never_match() -> None:
    expect = {"expected": "\u200b", "alternates": ["ok", " \u2060 "]}
    problems = SCORER.check(expect, "th")
    assert [path for path, _ in problems] == ["expect.expected", "expect.alternates[1]"]
    # Even if such a file got through, an empty form must not match everything.
    assert score("อะไรก็ได้", {"expected": "\u200b"}).outcome != "correct"


def test_check_accepts_ordinary_forms() -> None:
    assert SCORER.check({"expected": "ไลน์", "alternates": ["LINE"]}, "th") == []


def test_expected_text_lists_the_keyword_and_all_forms() -> None:
    text = SCORER.expected_text({"keyword": "LINE", "expected": "ไลน์", "alternates": ["LINE"]})
    assert text == "keyword LINE: ไลน์ | LINE"
    assert SCORER.expected_text({"expected": "ไลน์"}) == "keyword ไลน์"


# --- the Thai case pack -----------------------------------------------------------------------

CATEGORIES = {"code_switch", "rare_words", "names", "informal_spelling", "long_sentences"}


def load_suite() -> dict[str, Any]:
    with CASE_FILE.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


SUITE = load_suite()
ITEMS = {item["id"]: item for item in SUITE["items"]}


def test_case_file_header() -> None:
    assert (SUITE["suite"], SUITE["language"], SUITE["scorer"]) == ("th-keywords", "th", "keyword")
    assert len(ITEMS) == len(SUITE["items"]), "item ids must be unique"
    assert {item["category"] for item in SUITE["items"]} == CATEGORIES


@pytest.mark.parametrize("item_id", sorted(ITEMS))
def test_case_item_expect_is_valid(item_id: str) -> None:
    item = ITEMS[item_id]
    jsonschema.validate(item["expect"], SCORER.expect_schema)
    assert SCORER.check(item["expect"], item.get("language", SUITE["language"])) == []


@pytest.mark.parametrize("item_id", sorted(ITEMS))
def test_case_item_texts_score_correct(item_id: str) -> None:
    # An engine and recognizer that render the text faithfully must pass: every text variant,
    # read back as its own transcript, holds the keyword. Catches typos between text and expect.
    item = ITEMS[item_id]
    texts = [item[key] for key in ("text", "text_mono", "text_bilingual") if key in item]
    for text in texts:
        verdict = score(text, item["expect"])
        assert verdict.outcome == "correct", (text, verdict.explain())


@pytest.mark.parametrize("item_id", sorted(i for i, item in ITEMS.items() if item["category"] == "code_switch"))
def test_code_switch_items_carry_script_variants(item_id: str) -> None:
    item = ITEMS[item_id]
    keyword = item["expect"]["keyword"]
    thai_form = item["expect"]["expected"]
    assert keyword in item["text"] and thai_form not in item["text"]
    assert thai_form in item["text_mono"] and not any(ch.isascii() and ch.isalpha() for ch in item["text_mono"])
    assert thai_form in item["text_bilingual"] and keyword in item["text_bilingual"]


# --- recorded transcripts, scored both ways ---------------------------------------------------

# One entry per row of tests/data/th-transcripts.jsonl, in file order: the verdict the row must
# get against its item's expect, and why.
EXPECTED_VERDICTS: list[tuple[str, str, str]] = [
    ("cs-line", "correct", "Thai spelling"),
    ("cs-line", "correct", "Latin alternate in lower case"),
    ("cs-line", "wrong", "different word: ไลฟ์ (live)"),
    ("cs-zoom", "correct", "Thai spelling"),
    ("cs-zoom", "correct", "Latin alternate in upper case"),
    ("cs-zoom", "wrong", "vowel length: ซุม"),
    ("cs-email", "correct", "อีเมล์ contains อีเมล"),
    ("cs-email", "correct", "Latin alternate E-mail"),
    ("cs-email", "wrong", "different word: ไปรษณีย์"),
    ("cs-wifi", "correct", "Thai spelling"),
    ("cs-wifi", "correct", "wi fi matches WiFi space-free"),
    ("cs-wifi", "wrong", "half the word: ไฟ"),
    ("cs-download", "correct", "space inside the word"),
    ("cs-download", "wrong", "different word: อัปโหลด"),
    ("cs-meeting", "correct", "informal alternate มีทติ้ง"),
    ("cs-meeting", "wrong", "vowel length: มิตติ้ง"),
    ("cs-google", "correct", "alternate กูเกิ้ล with the tone typed before the vowel"),
    ("cs-google", "wrong", "tone changed: กูเกิ่ล"),
    ("cs-facebook", "correct", "informal alternate เฟสบุ๊ค"),
    ("cs-facebook", "wrong", "tone changed: mai chattawa for mai tri"),
    ("rw-theory", "correct", "exact"),
    ("rw-theory", "wrong", "different word: สมมติฐาน"),
    ("rw-eclipse", "correct", "exact"),
    ("rw-eclipse", "wrong", "different word: จันทรุปราคา"),
    ("rw-piphat", "correct", "tone typed before sara ii"),
    ("rw-piphat", "wrong", "vowel length: sara i for sara ii"),
    ("rw-piphat", "wrong", "tone changed: mai tho for mai ek"),
    ("rw-coral", "correct", "spaces around the word, เเ in the sentence"),
    ("rw-coral", "wrong", "vowel length: sara aa for sara a"),
    ("rw-dew", "correct", "sara am typed as nikhahit, tone, sara aa"),
    ("rw-dew", "correct", "tone typed after sara am"),
    ("rw-dew", "wrong", "sara aa for sara am: น้า"),
    ("rw-teak", "correct", "space inside the keyword"),
    ("rw-teak", "wrong", "tone changed: ไม่ for ไม้"),
    ("rw-orchestra", "correct", "zero-width space inside the word"),
    ("rw-orchestra", "wrong", "different word: โยธวาทิต"),
    ("nm-chiangmai", "correct", "exact"),
    ("nm-chiangmai", "wrong", "different city; ปีใหม่ elsewhere does not help"),
    ("nm-somsak", "correct", "thanthakhat typed before sara i"),
    ("nm-somsak", "wrong", "thanthakhat dropped: an extra syllable is read"),
    ("nm-suvarnabhumi", "correct", "zero-width space inside the name"),
    ("nm-suvarnabhumi", "correct", "spaces inside the name"),
    ("nm-suvarnabhumi", "wrong", "vowel length: ภูมี"),
    ("nm-ayutthaya", "correct", "exact"),
    ("nm-ayutthaya", "correct", "BOM, zero-width non-joiner and word joiner"),
    ("nm-ayutthaya", "wrong", "different province"),
    ("nm-chaophraya", "correct", "เเ, nikhahit + sara aa and a zero-width space"),
    ("nm-chaophraya", "wrong", "tone changed: เจ่า"),
    ("nm-khaosan", "correct", "exact"),
    ("nm-khaosan", "wrong", "tone mark dropped: ขาว for ข้าว"),
    ("nm-khaosan", "wrong", "tone changed: ข่าว (news)"),
    ("inf-dek", "correct", "ๆ without spaces"),
    ("inf-dek", "correct", "ๆ after a run longer than the word"),
    ("inf-dek", "correct", "repetition written out"),
    ("inf-dek", "wrong", "said once"),
    ("inf-khoi", "correct", "repetition written out"),
    ("inf-khoi", "wrong", "tone changed: ค้อย"),
    ("inf-mak-mak", "correct", "ๆ glued to the phrase"),
    ("inf-mak-mak", "wrong", "said once"),
    ("inf-update", "correct", "official spelling"),
    ("inf-update", "correct", "informal alternate"),
    ("inf-update", "wrong", "different word: อัปโหลด"),
    ("inf-hot", "correct", "elongation read as the plain word"),
    ("inf-hot", "wrong", "tone changed: ร่อน"),
    ("inf-chai-mai", "correct", "alternate spelling ไหม"),
    ("inf-chai-mai", "correct", "exact"),
    ("inf-chai-mai", "wrong", "different words: ไม่ใช่"),
    ("ls-train", "correct", "zero-width space inside, space after"),
    ("ls-train", "wrong", "different province: อุดรธานี"),
    ("ls-hospital", "correct", "exact, space after"),
    ("ls-hospital", "wrong", "different hospital"),
    ("ls-seminar", "correct", "Thai digit ๘"),
    ("ls-seminar", "correct", "number word with a space"),
    ("ls-seminar", "correct", "เเ for แ in แปด"),
    ("ls-seminar", "wrong", "Thai digit ๙"),
    ("ls-curry", "correct", "exact"),
    ("ls-curry", "wrong", "vowel length: มะกรุด"),
    ("ls-flood", "correct", "nikhahit, tone, sara aa"),
    ("ls-flood", "wrong", "tone changed: ป้า (aunt)"),
    ("ls-sticky-rice", "correct", "spaces inside, ๆ earlier in the sentence"),
    ("ls-sticky-rice", "wrong", "tone mark dropped: ขาว"),
    ("ls-sticky-rice", "wrong", "different word: มะพร้าว"),
]


def load_transcripts() -> list[dict[str, str]]:
    with TRANSCRIPTS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


ROWS = load_transcripts()


def test_transcript_table_lines_up_with_the_file() -> None:
    assert [row["id"] for row in ROWS] == [f"th-keywords/{item}" for item, _, _ in EXPECTED_VERDICTS]
    assert all(set(row) == {"id", "text"} for row in ROWS)
    # Every item is exercised, and both ways where a near miss exists.
    assert {item for item, _, _ in EXPECTED_VERDICTS} == set(ITEMS)


@pytest.mark.parametrize(
    ("index", "outcome"),
    [pytest.param(i, outcome, id=f"{i:02d}-{item}-{why}") for i, (item, outcome, why) in enumerate(EXPECTED_VERDICTS)],
)
def test_recorded_transcript_verdict(index: int, outcome: str) -> None:
    row = ROWS[index]
    item = ITEMS[row["id"].removeprefix("th-keywords/")]
    context = ScoreContext(language=item.get("language", SUITE["language"]), text=item["text"])
    verdict = SCORER.score(row["text"], item["expect"], context)
    assert verdict.outcome == outcome, verdict.explain()


@pytest.mark.parametrize(
    ("transcript", "keyword", "outcome"),
    [
        # a keyword spelled with ๆ in the middle, the formal space kept or left out on either side
        ("มีปัญหาต่างๆ นานาเกิดขึ้น", "ต่าง ๆ นานา", "correct"),
        ("มีปัญหาต่าง ๆ นานาเกิดขึ้น", "ต่างๆนานา", "correct"),
        ("มีปัญหาต่างต่างนานาเกิดขึ้น", "ต่างๆ นานา", "correct"),
        ("มีปัญหาต่างนานาเกิดขึ้น", "ต่างๆ นานา", "wrong"),
        ("จะไปเร็วๆนี้", "เร็ว ๆ นี้", "correct"),
        ("จะไปเร็ว ๆ นี้", "เร็วๆนี้", "correct"),
        ("จะไปเร็วนี้", "เร็ว ๆ นี้", "wrong"),
        ("จะไปเร็ว ๆ ที่นี่", "เร็ว ๆ นี้", "wrong"),
        # written out by the recognizer, with the spaces a typist leaves around ๆ
        ("ได้ไปเที่ยวบ่อย ๆ ", "บ่อยๆ", "correct"),
        ("ได้ไปเที่ยวบ่อยบ่อย", "บ่อย ๆ", "correct"),
        ("ได้ไปเที่ยวบ่อย", "บ่อย ๆ", "wrong"),
    ],
)
def test_keywords_spelled_with_mai_yamok_both_ways(transcript: str, keyword: str, outcome: str) -> None:
    assert score(transcript, {"expected": keyword}).outcome == outcome


@pytest.mark.parametrize(
    ("transcript", "keyword", "outcome"),
    [
        # a keyword inside another syllable is not the keyword
        ("หมาวิ่งเร็ว", "มา", "wrong"),  # silent ห joins ม: หมา is "dog"
        ("เขามาแล้ว", "มา", "correct"),
        ("เมาแล้ว", "มา", "wrong"),  # the leading vowel เ is read with ม
        ("ไก่ย่างอร่อย", "ไก", "wrong"),  # the tone mark belongs to ก
        ("ไกลมาก", "ไก", "correct"),  # a final consonant after it cannot be told from the next word
        ("อยู่บ้าน", "ยู่", "wrong"),  # silent อ joins ย
        ("กินข้าวที่บ้าน", "ข้าว", "correct"),
        ("กรุณาส่งทางอีเมล์", "อีเมล", "correct"),  # ์ silences a final letter: the same word
    ],
)
def test_thai_keyword_must_stand_as_its_own_syllables(transcript: str, keyword: str, outcome: str) -> None:
    assert score(transcript, {"expected": keyword}).outcome == outcome


def test_other_languages_match_anywhere() -> None:
    assert score("the keyword is inside", {"expected": "side"}, ScoreContext("en")).outcome == "correct"


# --- Latin and digit keywords inside Thai text; cluster boundaries from PyThaiNLP's TCC --------


@pytest.mark.parametrize(
    ("transcript", "keyword", "outcome"),
    [
        ("เครือข่าย5Gเร็วมาก", "5G", "correct"),
        ("เครือข่าย15Gเร็วมาก", "5G", "wrong"),  # a number runs on: 15G is not 5G
        ("ราคา150บาท", "15", "wrong"),
        ("ราคา1.15บาท", "15", "wrong"),
        ("ราคา15บาท", "15", "correct"),
        ("รุ่นiPhone15ใหม่", "iPhone", "correct"),  # a letter next to a digit is a boundary
        ("รุ่นiPhone15ใหม่", "Phone", "wrong"),  # a Latin word runs on
        ("ไปเมาที่บ้าน", "มา", "wrong"),  # the leading vowel belongs to the cluster (TCC)
        ("ไก่ย่าง", "ไก", "wrong"),  # the tone mark does too
        ("ส่งอีเมล์แล้ว", "อีเมล", "correct"),  # a thanthakhat after it is allowed
    ],
)
def test_keyword_boundaries_inside_thai_text(transcript: str, keyword: str, outcome: str) -> None:
    assert score(transcript, {"expected": keyword}).outcome == outcome
