"""Canonicalization for keyword matching: each rule absorbs its variant and nothing else.

Every rule has cases where two spellings must become equal and cases where they must stay
different. Combining marks are written as escapes where their order is the point of the case.
"""

from __future__ import annotations

import pytest

from pytest_ttsbench.scorers import thai
from pytest_ttsbench.scorers.keyword import canonicalize

MAI_EK, MAI_THO = "\u0e48", "\u0e49"
SARA_I, SARA_II, SARA_U = "\u0e34", "\u0e35", "\u0e38"
NIKHAHIT, YAMAKKAN, THANTHAKHAT, PHINTHU = "\u0e4d", "\u0e4e", "\u0e4c", "\u0e3a"
MAI_HAN_AKAT, MAI_TAIKHU = "\u0e31", "\u0e47"


@pytest.mark.parametrize(
    ("rule", "left", "right", "same"),
    [
        # NFC: a precomposed and a decomposed letter are one letter ...
        ("nfc", "café", "cafe\u0301", True),
        # ... and the fold's NFKC folds width, but nothing strips accents.
        ("nfc", "café", "cafe", False),
        ("nfc", "Ａ", "a", True),
        # Zero-width characters vanish wherever they are, ...
        ("zero-width", "อยุธยา", "อยุ\u200bธยา", True),
        ("zero-width", "อยุธยา", "\ufeffอ\u200cยุ\u200dธ\u2060ยา", True),
        ("zero-width", "กี่", f"ก\u200b{SARA_II}{MAI_EK}", True),
        # ... while visible spaces do not: a no-break space is whitespace, not nothing.
        ("zero-width", "ก ข", "ก\u00a0ข", True),
        ("zero-width", "กข", "ก\u00a0ข", False),
        # Two sara e typed for sara ae.
        ("sara-ae", "แม่", "เเม่", True),
        ("sara-ae", "แปด", "เเปด", True),
        # A single sara e is not sara ae, and two sara e split by a space are left alone.
        ("sara-ae", "เกม", "แกม", False),
        ("sara-ae", "แก", "เ เก", False),
        # Sara am typed as nikhahit + sara aa, with the tone mark before, between or after.
        ("sara-am", "น้ำ", f"น{NIKHAHIT}{MAI_THO}า", True),
        ("sara-am", "น้ำ", f"น{MAI_THO}{NIKHAHIT}า", True),
        ("sara-am", "น้ำ", f"นำ{MAI_THO}", True),
        ("sara-am", "ทำ", f"ท{NIKHAHIT}า", True),
        # Sara am is not sara aa, nikhahit alone is not sara am, and the tone stays.
        ("sara-am", "น้ำ", "น้า", False),
        ("sara-am", "ทำ", f"ท{NIKHAHIT}", False),
        ("sara-am", "น้ำ", "นำ", False),
        ("sara-am", "น่ำ", "น้ำ", False),
        # Thai digits are ASCII digits.
        ("digits", "๒๕๖๘", "2568", True),
        ("digits", "๘ นาฬิกา", "8 นาฬิกา", True),
        # A digit keeps its value, and number words are not digits.
        ("digits", "๙", "8", False),
        ("digits", "แปด", "8", False),
        # Tone typed before the upper vowel (drawn identically).
        ("mark-order", "กี่", f"ก{MAI_EK}{SARA_II}", True),
        ("mark-order", "ปี่พาทย์", f"ป{MAI_EK}{SARA_II}พาทย์", True),
        ("mark-order", "มั่น", f"ม{MAI_EK}{MAI_HAN_AKAT}น", True),
        # Vowel before thanthakhat, nikhahit before tone, phinthu after the vowel below.
        ("mark-order", "สมศักดิ์", f"สมศักด{THANTHAKHAT}{SARA_I}", True),
        ("mark-order", f"ก{NIKHAHIT}{MAI_EK}", f"ก{MAI_EK}{NIKHAHIT}", True),
        ("mark-order", f"ก{YAMAKKAN}{MAI_EK}", f"ก{MAI_EK}{YAMAKKAN}", True),
        ("mark-order", f"ก{SARA_U}{PHINTHU}", f"ก{PHINTHU}{SARA_U}", True),
        ("mark-order", f"ก{MAI_TAIKHU}{THANTHAKHAT}", f"ก{THANTHAKHAT}{MAI_TAIKHU}", True),
        # Sorting never changes which marks there are, nor moves one across a letter.
        ("mark-order", "ไม้", "ไม่", False),
        ("mark-order", "ข้าว", "ขาว", False),
        ("mark-order", "ปี่", "ปิ่", False),
        ("mark-order", f"ก{MAI_EK}ข", f"กข{MAI_EK}", False),
        ("mark-order", f"ก{MAI_EK}{MAI_EK}", f"ก{MAI_EK}", False),
        ("mark-order", f"ก{MAI_EK}{MAI_THO}", f"ก{MAI_THO}{MAI_EK}", False),
        ("mark-order", "ปะ", "ปา", False),
        # Mai yamok repeats the run of Thai letters before it, with or without a space.
        ("mai-yamok", "เด็กๆ", "เด็กเด็ก", True),
        ("mai-yamok", "เด็ก ๆ", "เด็กเด็ก", True),
        ("mai-yamok", "เด็ก ๆ เล่น", "เด็กเด็ก เล่น", True),
        ("mai-yamok", "ดีๆ เร็วๆ", "ดีดี เร็วเร็ว", True),
        # The run stops at a space before it, and a ๆ is not a repeated letter.
        ("mai-yamok", "เล่นกับ เด็ก ๆ", "เล่นกับ เด็กเด็ก", True),
        ("mai-yamok", "เด็กๆ", "เด็ก", False),
        ("mai-yamok", "ดีๆ", "ดีดีดี", False),
        # Casefolding: ASCII and other cased scripts, never a letter change.
        ("casefold", "LINE", "line", True),
        ("casefold", "Straße", "STRASSE", True),
        ("casefold", "LINE", "LIME", False),
        # Whitespace runs collapse to one space and the ends are trimmed; a space stays a space.
        ("whitespace", "ไลน์  ใหม่\n", " ไลน์\tใหม่", True),
        ("whitespace", "ไลน์ ใหม่", "ไลน์ใหม่", False),
    ],
)
def test_thai_rule(rule: str, left: str, right: str, same: bool) -> None:
    assert (canonicalize(left, "th") == canonicalize(right, "th")) is same, (
        rule,
        canonicalize(left, "th"),
        canonicalize(right, "th"),
    )


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # The canonical mark order: vowel, nikhahit/yamakkan, tone, phinthu/thanthakhat.
        (
            f"ก{THANTHAKHAT}{MAI_EK}{NIKHAHIT}{SARA_I}",
            f"ก{SARA_I}{NIKHAHIT}{MAI_EK}{THANTHAKHAT}",
        ),
        # Sara am is written precomposed, the tone before it.
        (f"น{NIKHAHIT}{MAI_THO}า", f"น{MAI_THO}ำ"),
        (f"นำ{MAI_THO}", f"น{MAI_THO}ำ"),
        ("เเม่ ๕ คน", "แม่ 5 คน"),
        # The whole run before ๆ is repeated: Thai has no spaces to say where the word starts.
        ("กับเด็กๆ", "กับเด็กกับเด็ก"),
        # No Thai letters right before ๆ: nothing to repeat, it is left as written.
        ("OKๆ", "okๆ"),
        ("๒ๆ", "2ๆ"),
        ("ดีๆๆ", "ดีดีๆ"),
        # ฯ after a name is silent (กรุงเทพฯ is read กรุงเทพ), but it still stops ๆ from repeating.
        ("กรุงเทพฯๆ", "กรุงเทพๆ"),
        ("ไปกรุงเทพฯ", "ไปกรุงเทพ"),
        ("ผัก ผลไม้ ฯลฯ", "ผัก ผลไม้ ฯลฯ"),
        ("  Zoom \u200b ", "zoom"),
    ],
)
def test_thai_canonical_form(text: str, canonical: str) -> None:
    assert canonicalize(text, "th") == canonical


@pytest.mark.parametrize("language", ["th", "th-TH", "TH"])
def test_thai_rules_apply_to_every_thai_tag(language: str) -> None:
    assert canonicalize("เเม่", language) == "แม่"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # Language-neutral steps still run for other languages ...
        ("Zo\u200bom  Meeting", "zoom meeting"),
        ("cafe\u0301", "café"),
        # ... and every language's digits are ASCII digits (the fold), but the Thai rules do not run.
        ("๕", "5"),
        ("เเม่", "เเม่"),
        (f"ก{MAI_EK}{SARA_II}", f"ก{MAI_EK}{SARA_II}"),
        ("เด็กๆ", "เด็กๆ"),
    ],
)
def test_other_languages_get_only_neutral_rules(text: str, canonical: str) -> None:
    assert canonicalize(text, "en") == canonical


@pytest.mark.parametrize(
    ("text", "readings"),
    [
        ("เด็กๆ", ["เด็กเด็ก", "เด็กก"]),
        ("กับเด็กๆ", ["กับเด็กกับเด็ก", "กับเด็กบเด็ก", "กับเด็กเด็ก", "กับเด็กก"]),
        # A word never starts at a mark, a following vowel, or a consonant cut from its เ.
        ("เที่ยวๆ", ["เที่ยวเที่ยว", "เที่ยวยว", "เที่ยวว"]),
        # Each ๆ is varied on its own; the others keep the whole run.
        ("ก ขคๆ งๆ", ["ก ขคขค งง", "ก ขคค งง"]),
        ("ไม่มี", ["ไม่มี"]),
    ],
)
def test_mai_yamok_readings(text: str, readings: list[str]) -> None:
    assert thai.mai_yamok_readings(text) == readings
