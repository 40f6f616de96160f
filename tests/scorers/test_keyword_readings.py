"""Thai keywords heard in ways nobody listed (issue 34, round 4), and ``wrong`` only on evidence.

Each class is a hypothesis property over its members, never the quoted example alone:

* a ฯ that shortens a name is silent (กรุงเทพฯ heard as กรุงเทพ);
* full-width Latin and soft hyphens (any default-ignorable character) inside the keyword;
* amounts: digits in either script, with or without thousands separators, Thai number words,
  baht and satang, with PyThaiNLP's ``num_to_thaiword`` and ``bahttext`` as the oracle;
  another amount is ``wrong``;
* at the keyword's place: nothing, or another reading in the keyword's script, is ``wrong``;
  a reading in another script, or a place that cannot be found, is ``unknown`` with the span
  named in ``unread``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pythainlp.util import bahttext, num_to_thaiword
from shipped_packs import pack_file

from pytest_ttsbench.cases.loader import load_case_file
from pytest_ttsbench.scorers.base import ScoreContext
from pytest_ttsbench.scorers.default_ignorables import DEFAULT_IGNORABLE_RANGES
from pytest_ttsbench.scorers.keyword import KeywordScorer

SCORER = KeywordScorer()
ITEMS = [item for item in load_case_file(pack_file("th-keywords")).items]
IGNORABLE = [chr(c) for start, end in DEFAULT_IGNORABLE_RANGES for c in range(start, min(end, start + 8) + 1)]
THAI_DIGITS = str.maketrans("0123456789", "๐๑๒๓๔๕๖๗๘๙")

CONSONANTS = "กขคงจชซดตทนบปพฟมยรลวสหอ"
# Well-formed open or closed syllables (a consonant, a long vowel, a sonorant final), so that
# where a name ends is a syllable boundary the spelling shows.
syllables = st.builds(
    lambda first, vowel, final: first + vowel + final,
    st.sampled_from(CONSONANTS),
    st.sampled_from(["า", "ี", "ู", "ือ"]),
    st.sampled_from(["", "ง", "น", "ม"]),
)
names = st.lists(syllables, min_size=2, max_size=4).map("".join)
LEFT, RIGHT = "เมื่อวานฉันเดินทางไป", "กับครอบครัว"


def score(transcript: str, expect: dict[str, Any], text: str) -> Any:
    return SCORER.score(transcript, expect, ScoreContext("th", text=text))


# --- ฯ after a name ---------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(names, st.sampled_from(["", " "]), st.booleans())
def test_a_shortened_name_is_heard_without_its_paiyannoi(name: str, space: str, keep: bool) -> None:
    expect = {"expected": name + "ฯ"}
    heard = LEFT + space + name + ("ฯ" if keep else "") + space + RIGHT
    assert score(heard, expect, LEFT + name + "ฯ" + RIGHT).outcome == "correct"
    # and the other way round: a keyword listed without ฯ, heard with it
    assert score(heard, {"expected": name}, LEFT + name + RIGHT).outcome == "correct"


@settings(max_examples=100, deadline=None)
@given(names, st.sampled_from(CONSONANTS))
def test_a_shortened_name_with_another_letter_is_not(name: str, other: str) -> None:
    changed = name[:-1] + other
    assume(changed != name and name not in changed)
    verdict = score(LEFT + changed + RIGHT, {"expected": name + "ฯ"}, LEFT + name + "ฯ" + RIGHT)
    assert verdict.outcome == "wrong", verdict.explain()


# --- width and invisible characters inside the keyword -------------------------------------------


def _full_width(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ITEMS), st.data())
def test_full_width_forms_and_invisible_characters_inside_a_keyword(item: Any, data: st.DataObject) -> None:
    expect = dict(item.targets[0].expect)
    form = data.draw(st.sampled_from([expect["expected"], *expect.get("alternates", [])]))
    written = _full_width(form) if data.draw(st.booleans()) else form
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(written)))
        written = written[:at] + data.draw(st.sampled_from(IGNORABLE)) + written[at:]
    where = expect.get("keyword") or expect["expected"]
    heard = item.text.replace(where, written) if where in item.text else f"{item.text} {written}"
    assert score(heard, expect, item.text).outcome == "correct", (heard, form)


# --- amounts: PyThaiNLP's number words as the oracle ------------------------------------------------

amounts = st.integers(0, 10**8 - 1).map(lambda satang: Decimal(satang) / 100)
whole_amounts = st.integers(0, 10**9)


def _written(amount: Decimal) -> list[str]:
    """The ways a case author writes an amount of baht."""
    plain = f"{amount:.2f}".removesuffix(".00")
    grouped = f"{amount:,.2f}".removesuffix(".00")
    return [plain, grouped, grouped.translate(THAI_DIGITS)]


@settings(max_examples=200, deadline=None)
@given(amounts, st.data())
def test_an_amount_of_baht_reads_the_same_in_digits_and_words(amount: Decimal, data: st.DataObject) -> None:
    keyword = data.draw(st.sampled_from(_written(amount))) + " บาท"
    text = f"ค่าเช่าห้องเดือนนี้ {keyword} ต่อเดือน"
    expect = {"keyword": keyword, "expected": keyword}
    said = data.draw(st.sampled_from([bahttext(float(amount)), *(w + " บาท" for w in _written(amount))]))
    heard = f"ค่าเช่าห้องเดือนนี้{said}ต่อเดือน"
    verdict = score(heard, expect, text)
    assert verdict.outcome == "correct", (heard, keyword, verdict.explain())


@settings(max_examples=200, deadline=None)
@given(amounts, amounts, st.data())
def test_another_amount_of_baht_is_wrong(amount: Decimal, other: Decimal, data: st.DataObject) -> None:
    assume(other != amount)
    keyword = data.draw(st.sampled_from(_written(amount))) + " บาท"
    text = f"ค่าเช่าห้องเดือนนี้ {keyword} ต่อเดือน"
    said = data.draw(st.sampled_from([bahttext(float(other)), *(w + " บาท" for w in _written(other))]))
    verdict = score(f"ค่าเช่าห้องเดือนนี้{said}ต่อเดือน", {"expected": keyword}, text)
    assert verdict.outcome == "wrong", (said, keyword, verdict.explain())


@settings(max_examples=200, deadline=None)
@given(whole_amounts, st.booleans(), st.data())
def test_a_count_in_number_words_or_digits(number: int, words_written: bool, data: st.DataObject) -> None:
    """num_to_thaiword both ways: a keyword in words heard in digits, and in digits heard in words."""
    digits = data.draw(st.sampled_from([str(number), f"{number:,}", f"{number:,}".translate(THAI_DIGITS)]))
    keyword, said = (num_to_thaiword(number), digits) if words_written else (digits, num_to_thaiword(number))
    text = f"ปีนี้มีนักท่องเที่ยว {keyword} คนมาเที่ยวที่นี่"
    assert score(f"ปีนี้มีนักท่องเที่ยว{said}คนมาเที่ยวที่นี่", {"expected": keyword}, text).outcome == "correct"
    other = num_to_thaiword(number + data.draw(st.sampled_from([1, 10, 1000, -1]))) if number else "หนึ่ง"
    verdict = score(f"ปีนี้มีนักท่องเที่ยว{other}คนมาเที่ยวที่นี่", {"expected": keyword}, text)
    assert verdict.outcome == "wrong", (keyword, other, verdict.explain())


def test_words_that_only_contain_a_number_stay_words() -> None:
    # พันธุ์ (breed) holds พัน (thousand); เก้าอี้ (chair) holds เก้า (nine): not amounts.
    text = "ร้านนี้ขายเก้าอี้ 9 ตัว"
    assert score("ร้านนี้ขายเก้าอี้เก้าตัว", {"expected": "9 ตัว"}, text).outcome == "correct"
    assert score("ร้านนี้ขายเก้าอี้แปดตัว", {"expected": "9 ตัว"}, text).outcome == "wrong"


# --- wrong only on evidence at the keyword's place ----------------------------------------------

THAI_ONLY = [item for item in ITEMS if not any(ch.isascii() for ch in item.targets[0].expect["expected"])]
latin_words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([i for i in THAI_ONLY if "alternates" not in i.targets[0].expect]), latin_words)
def test_a_reading_in_another_script_is_unknown_and_named(item: Any, word: str) -> None:
    expect = dict(item.targets[0].expect)
    where = expect["expected"]
    assume(where in item.text)
    verdict = score(item.text.replace(where, f" {word} "), expect, item.text)
    assert verdict.outcome == "unknown", verdict.explain()
    assert verdict.unread and word in verdict.unread[0], verdict.unread
    assert "unread" in verdict.evidence()


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(THAI_ONLY), names)
def test_another_thai_reading_in_the_keywords_place_is_wrong(item: Any, word: str) -> None:
    expect = dict(item.targets[0].expect)
    where = expect.get("keyword") or expect["expected"]
    assume(where in item.text and not any(f.replace(" ", "") in word for f in [expect["expected"]]))
    verdict = score(item.text.replace(where, word), expect, item.text)
    assert verdict.outcome != "correct" or word.startswith(expect["expected"]), verdict.explain()
    if verdict.outcome != "correct":
        assert verdict.outcome == "wrong", (word, verdict.explain())
        assert verdict.extra["heard_in_place"], verdict.extra


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ITEMS))
def test_a_keyword_left_out_is_wrong(item: Any) -> None:
    expect = dict(item.targets[0].expect)
    where = expect.get("keyword") or expect["expected"]
    assume(where in item.text)
    verdict = score(item.text.replace(where, ""), expect, item.text)
    assert verdict.outcome == "wrong", verdict.explain()
    assert verdict.extra["heard_in_place"] == ""


def test_a_transcript_that_cannot_be_aligned_is_unknown_with_the_transcript_unread() -> None:
    item = next(i for i in ITEMS if i.id == "nm-suvarnabhumi")
    verdict = score("the flight leaves at five", dict(item.targets[0].expect), item.text)
    assert verdict.outcome == "unknown"
    assert verdict.unread == ("the flight leaves at five",)
    assert "unread: 'the flight leaves at five'" in verdict.explain()


def test_an_empty_transcript_is_wrong() -> None:
    item = ITEMS[0]
    assert score("", dict(item.targets[0].expect), item.text).outcome == "wrong"


@given(st.sampled_from(["พันนึง", "พันกว่า", "พันเศษ", "หนึ่งพันกว่า"]), st.sampled_from(["1,000 บาท", "หนึ่งพันบาท"]))
def test_the_same_amount_with_number_words_not_read_is_unknown(said: str, keyword: str) -> None:
    text = f"ค่าเช่าห้องเดือนนี้ {keyword} ต่อเดือน"
    verdict = score(f"ค่าเช่าห้องเดือนนี้{said}บาทต่อเดือน", {"expected": keyword}, text)
    assert verdict.outcome == "unknown", verdict.explain()
    assert said in verdict.unread[0]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 999), st.sampled_from([(1_000_000, "ล้าน"), (100_000, "แสน"), (10_000, "หมื่น"), (1000, "พัน")]))
def test_digits_said_with_a_scale_word(tenths: int, scale: tuple[int, str]) -> None:
    """1.5 ล้านบาท, 25 พันบาท: digits with a Thai scale word are the amount bahttext spells out."""
    multiplier, word = scale
    digits = f"{Decimal(tenths) / 10:f}".removesuffix(".0")
    keyword = f"{digits} {word}บาท"
    text = f"โครงการนี้ใช้งบประมาณ {keyword} ในปีนี้"
    amount = Decimal(tenths) * multiplier / 10
    said = bahttext(float(amount)).removesuffix("ถ้วน")
    assert score(f"โครงการนี้ใช้งบประมาณ{said}ในปีนี้", {"expected": keyword}, text).outcome == "correct", said
    other = bahttext(float(amount + multiplier))
    verdict = score(f"โครงการนี้ใช้งบประมาณ{other}ในปีนี้", {"expected": keyword}, text)
    assert verdict.outcome == "wrong", (other, verdict.explain())


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.sampled_from([(1_000_000, "ล้าน"), (100_000, "แสน"), (1000, "พัน"), (100, "ร้อย")]))
def test_half_after_a_scale_word(count: int, scale: tuple[int, str]) -> None:
    """สองพันครึ่ง is 2,500, ล้านครึ่ง 1,500,000: ครึ่ง after a scale word adds half of that scale."""
    multiplier, word = scale
    amount = count * multiplier + multiplier // 2
    keyword = f"{amount:,} บาท"
    text = f"ค่าซ่อมรถครั้งนี้ {keyword} เลย"
    words = num_to_thaiword(count * multiplier)
    assert words.endswith(word)
    said = f"{words}ครึ่งบาท"
    assert score(f"ค่าซ่อมรถครั้งนี้{said}เลย", {"expected": keyword}, text).outcome == "correct", said


@settings(max_examples=100, deadline=None)
@given(whole_amounts, st.booleans())
def test_the_baht_sign_is_read_baht(amount: int, sign_first: bool) -> None:
    keyword = f"฿{amount:,}" if sign_first else f"{amount:,}฿"
    text = f"ราคาสินค้าชิ้นนี้ {keyword} รวมภาษีแล้ว"
    said = bahttext(float(amount))
    assert score(f"ราคาสินค้าชิ้นนี้{said}รวมภาษีแล้ว", {"expected": keyword}, text).outcome == "correct", said


# --- hyphens between letters are not said -----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ITEMS), st.data())
def test_a_hyphen_between_letters_is_not_heard(item: Any, data: st.DataObject) -> None:
    """Wi-Fi, WiFi and Wi Fi; e-mail and email: a hyphen or dash between two Latin letters, added or left out."""
    expect = dict(item.targets[0].expect)
    form = data.draw(st.sampled_from([expect["expected"], *expect.get("alternates", [])]))
    letters = [
        i for i in range(1, len(form)) if (form[i - 1] + form[i]).isascii() and (form[i - 1] + form[i]).isalpha()
    ]
    written = form.replace("-", data.draw(st.sampled_from(["", " ", "\u2010"])))
    if letters:
        at = data.draw(st.sampled_from(letters))
        written = (
            written if written != form else form[:at] + data.draw(st.sampled_from(["-", "\u2011", "–"])) + form[at:]
        )
    where = expect.get("keyword") or expect["expected"]
    assume(where in item.text)
    heard = item.text.replace(where, f" {written} ")
    assert score(heard, expect, item.text).outcome == "correct", (heard, form)


def test_a_hyphen_between_digits_is_kept() -> None:
    text = "ร้านเปิด 10-12 นาฬิกา"
    assert score("ร้านเปิด 1012 นาฬิกา", {"expected": "10-12 นาฬิกา"}, text).outcome != "correct"


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 99), st.sampled_from(["กิโลเมตร", "ชั่วโมง", "เดือน", "ลิตร", "บาท"]))
def test_half_after_a_unit(count: int, unit: str) -> None:
    """สองกิโลเมตรครึ่ง is 2.5 km, สามชั่วโมงครึ่ง 3.5 hours: ครึ่ง after a count and its unit."""
    keyword = f"{count}.5 {unit}"
    text = f"เมื่อวานเราเดินทางไปอีก {keyword} ก่อนถึงที่พัก"
    said = f"{num_to_thaiword(count)}{unit}ครึ่ง"
    verdict = score(f"เมื่อวานเราเดินทางไปอีก{said}ก่อนถึงที่พัก", {"expected": keyword}, text)
    assert verdict.outcome == "correct", (said, verdict.explain())
    other = f"{num_to_thaiword(count + 1)}{unit}ครึ่ง"
    verdict = score(f"เมื่อวานเราเดินทางไปอีก{other}ก่อนถึงที่พัก", {"expected": keyword}, text)
    assert verdict.outcome == "wrong", (other, verdict.explain())
