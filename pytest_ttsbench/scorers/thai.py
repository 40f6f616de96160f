"""Thai canonicalization: make spellings that look and sound the same compare equal, and nothing more.

Thai text that renders identically can be stored in several ways, and recognizers, case authors
and typists all produce the variants. The rules below absorb exactly those variants:

* Thai digits (``๐``–``๙``) become ASCII digits.
* Two sara e (``เเ``), typed for the sara ae glyph, become ``แ``.
* Sara am typed as nikhahit + sara aa (``ํา``), with or without tone marks between them, becomes
  ``ำ``; a tone mark typed after ``ำ`` (``นำ้``) moves before it (``น้ำ``), where it is drawn.
* The combining marks stacked on one base character are stably sorted into one order: vowels
  above/below (and mai taikhu), then nikhahit/yamakkan, then tone marks, then phinthu/thanthakhat.
  NFC does not do this: most Thai marks have combining class 0, so ``ก่ี`` (tone typed first) and
  ``กี่`` stay different strings after NFC although they are drawn the same.
* Mai yamok (``ๆ``) is expanded by repeating the word before it; see :func:`expand_mai_yamok`.

Nothing here removes or replaces a mark or a letter that changes the reading: a different tone
mark (``ไม้``/``ไม่``), a missing one (``ข้าว``/``ขาว``) or a different vowel length (``ปะ``/``ปา``)
stays different. The sort is stable, so even two marks of the same group keep their order.
"""

from __future__ import annotations

import re

SARA_E = "\u0e40"  # เ
SARA_AE = "\u0e41"  # แ
SARA_AA = "\u0e32"  # า
SARA_AM = "\u0e33"  # ำ
NIKHAHIT = "\u0e4d"  # ํ
MAI_YAMOK = "\u0e46"  # ๆ

_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")

# Tone marks: mai ek, mai tho, mai tri, mai chattawa.
_TONES = "\u0e48\u0e49\u0e4a\u0e4b"

# Rank of each combining mark in the canonical order of a cluster. Lower ranks come first.
_MARK_RANK: dict[str, int] = {
    # Vowels above and below the consonant, and mai taikhu (a vowel-shortening sign).
    **dict.fromkeys("\u0e31\u0e34\u0e35\u0e36\u0e37\u0e38\u0e39\u0e47", 0),
    # Nikhahit and yamakkan.
    **dict.fromkeys("\u0e4d\u0e4e", 1),
    **dict.fromkeys(_TONES, 2),
    # Phinthu and thanthakhat (the silencing mark).
    **dict.fromkeys("\u0e3a\u0e4c", 3),
}

# Letters that may be part of the word ``ๆ`` repeats: consonants, vowels, marks and lakkhangyao;
# not digits, ``ฯ``, the baht sign, punctuation or ``ๆ`` itself.
_THAI_LETTER = "\u0e01-\u0e2e\u0e30-\u0e3a\u0e40-\u0e45\u0e47-\u0e4e"
# Where a repeated word may begin: a consonant or a leading vowel (เ แ โ ใ ไ).
_WORD_START = re.compile("[\u0e01-\u0e2e\u0e40-\u0e44]")
_LEADING_VOWELS = "\u0e40\u0e41\u0e42\u0e43\u0e44"
# A run of Thai letters, the whitespace between it and a following ``ๆ``, and the ``ๆ``.
_MAI_YAMOK_AFTER_RUN = re.compile(f"([{_THAI_LETTER}]+)\\s*{MAI_YAMOK}")


def sort_marks(text: str) -> str:
    """Stably sort each run of combining marks by :data:`_MARK_RANK`; bases never move."""
    out: list[str] = []
    marks: list[str] = []
    for ch in text:
        if ch in _MARK_RANK:
            marks.append(ch)
            continue
        out.extend(sorted(marks, key=_MARK_RANK.__getitem__))
        marks.clear()
        out.append(ch)
    out.extend(sorted(marks, key=_MARK_RANK.__getitem__))
    return "".join(out)


def normalize_spelling(text: str) -> str:
    """Every Thai rule except mai yamok expansion: digits, ``เเ``, sara am, mark order.

    Expects NFC text with zero-width characters already removed (they would split a cluster).
    """
    text = text.translate(_THAI_DIGITS).replace(SARA_E + SARA_E, SARA_AE)
    # Sara am is handled in its two-character form so that the cluster sort can place any tone
    # mark typed between nikhahit and sara aa; it is composed again afterwards.
    text = text.replace(SARA_AM, NIKHAHIT + SARA_AA)
    text = re.sub(f"{NIKHAHIT}{SARA_AA}([{_TONES}]+)", f"\\1{NIKHAHIT}{SARA_AA}", text)
    text = sort_marks(text)
    return re.sub(f"{NIKHAHIT}([{_TONES}]*){SARA_AA}", f"\\1{SARA_AM}", text)


def expand_mai_yamok(text: str) -> str:
    """Replace each ``ๆ`` with the run of Thai letters before it.

    The run is the longest stretch of Thai letters (consonants, vowels, marks) that ends right
    before the ``ๆ``, or before the whitespace between them: ``เด็ก ๆ`` and ``เด็กๆ`` both become
    ``เด็กเด็ก``. A ``ๆ`` with no such run before it (after a digit, Latin text or another ``ๆ``)
    is left as it is. Thai writes no spaces between words, so in running text the run can be
    longer than the word that is meant (``กับเด็กๆ`` gives ``กับเด็กกับเด็ก``); the keyword scorer
    therefore also tries the shorter words, see :func:`mai_yamok_readings`. In a keyword, a space
    before the repeated word marks where it begins (``เล่นกับ เด็ก ๆ``).
    """
    return _MAI_YAMOK_AFTER_RUN.sub(lambda m: m.group(1) + m.group(1), text)


def _word_starts(run: str) -> list[int]:
    """Offsets in ``run`` where a word can begin: a consonant or leading vowel not split from its
    consonant (the consonant after ``เ`` cannot start a word without the ``เ``)."""
    return [i for i, ch in enumerate(run) if _WORD_START.match(ch) and (i == 0 or run[i - 1] not in _LEADING_VOWELS)]


def mai_yamok_readings(text: str) -> list[str]:
    """The ways ``text`` may be read with its ``ๆ`` expanded, the :func:`expand_mai_yamok` form first.

    For each ``ๆ`` on its own, the repeated word may be any tail of its run that begins where a
    word can begin; every other ``ๆ`` keeps the whole run. A keyword repeated by two different
    ``ๆ`` marks of one transcript, each needing a shorter word, is not covered.
    """
    default = expand_mai_yamok(text)
    readings = [default]
    for match in _MAI_YAMOK_AFTER_RUN.finditer(text):
        run = match.group(1)
        before = expand_mai_yamok(text[: match.start()])
        after = expand_mai_yamok(text[match.end() :])
        for start in _word_starts(run)[1:]:
            reading = before + run + run[start:] + after
            if reading not in readings:
                readings.append(reading)
    return readings


# ห before a sonorant (หมา, หนู, หลาย) and อ before ย (อยู่, อย่า) are silent letters that make one
# initial with it: the sonorant alone is a different word. Character clusters do not show this
# (TCC splits ห|มา), so it stays a rule of ours.
_SONORANTS_AFTER_HO_HIP = set("งญนมยรลว")
THANTHAKHAT = "\u0e4c"


def _kind(ch: str) -> str:
    """ "digit", "latin" (a letter outside Thai) or "" for what may sit next to a word or number."""
    if ch.isdigit():
        return "digit"
    if ch.isalpha() and not "\u0e00" <= ch <= "\u0e7f":
        return "latin"
    return ""


def _runs_on(text: str, left: int, right: int) -> bool:
    """Whether a Latin word or a number runs on across the cut between ``left`` and ``right``.

    Inside Thai text a Latin keyword or a number is still a word of its own: ``5G`` is not in
    ``15G``, ``15`` not in ``150`` or ``1.15``, ``Phone`` not in ``iPhone``; a letter next to a
    digit is a boundary (``iPhone15`` holds ``iPhone``).
    """
    if left < 0 or right >= len(text):
        return False
    a, b = _kind(text[left]), _kind(text[right])
    if a and a == b:
        return True
    # A decimal point or thousands separator between digits: 1.15, 1,500.
    if text[left] in ".," and b == "digit" and left > 0 and _kind(text[left - 1]) == "digit":
        return True
    return text[right] in ".," and a == "digit" and right + 1 < len(text) and _kind(text[right + 1]) == "digit"


def cluster_boundaries(text: str) -> set[int]:
    """Offsets where a Thai character cluster may end or begin, by PyThaiNLP's TCC rules.

    A cluster is a consonant with the vowels and marks that belong to it (เมา, ไก่, บ้า|น): text
    can be cut only between clusters. TCC is a published rule set (Theeramunkong et al. 2000),
    implemented by PyThaiNLP without any downloaded data. PyThaiNLP is imported here, on the
    first Thai keyword matched: its import (a fifth of a second) is not paid by a run that only
    collects the Thai items, or skips them.
    """
    from pythainlp.tokenize.tcc import tcc_pos

    return {0, len(text), *tcc_pos(text)}


def stands_alone(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` can be a word of its own there, as far as Thai spelling tells.

    Both ends must be cluster boundaries (:func:`cluster_boundaries`): not when a leading vowel
    (เ แ โ ใ ไ) stands right before it (เมา holds มา, but the เ is read with the ม), nor when a
    vowel sign or tone mark after it belongs to its last consonant (ไก่ holds ไก). A thanthakhat
    after it is allowed (อีเมล์ is how many write อีเมล). Nor when a silent ห or อ before it joins
    its first consonant (หมา holds มา, อยู่ holds ยู่). Whatever the spelling does not rule out is
    allowed: without a dictionary, a consonant after the match may be a final consonant or the
    next word.
    """
    if _runs_on(text, start - 1, start) or _runs_on(text, end - 1, end):
        return False
    boundaries = cluster_boundaries(text)
    after = text[end] if end < len(text) else ""
    if start not in boundaries:
        return False
    if end not in boundaries and not (after == THANTHAKHAT and end + 1 in boundaries):
        return False
    before = text[start - 1] if start > 0 else ""
    first = text[start] if start < len(text) else ""
    if before == "\u0e2b" and first in _SONORANTS_AFTER_HO_HIP:
        return False
    return not (before == "\u0e2d" and first == "\u0e22")


# ฯ (paiyannoi) that shortens a name, not one of ฯลฯ ("and so on", which is read aloud).
_SILENT_PAIYANNOI = re.compile("(?<!\u0e2f\u0e25)\u0e2f(?!\u0e25\u0e2f)")


def silent_paiyannoi(text: str) -> str:
    """``text`` without the ฯ that shortens a name: กรุงเทพฯ is read กรุงเทพ in everyday speech."""
    return _SILENT_PAIYANNOI.sub("", text)
