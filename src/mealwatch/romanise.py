"""One script for every complaint: Devanagari written the way people type Hinglish, Latin left as it is.

"उल्टी" and "ulti" (vomiting) are one word in two scripts. ``romanise_text`` rewrites every run of
Devanagari in a text in Latin letters as a phone keyboard would ("खिचड़ी" -> "khichdi", "बच्चों को उल्टी" ->
"bachchon ko ulti") and keeps everything else — Latin words, digits, punctuation, emoji — character for
character. ``fold_spelling`` then brings common romanised variants together ("ultee", "ulty" -> "ulti";
"bacche", "bachhe", "bachche" -> "bache"; "zyaada" -> "jyada"). Both are feature views for the n-gram
channel and the transliteration experiments: the text a user sent is never changed.

A word is romanised in three steps:

    Devanagari ─► schwa deletion (a virama is written where Hindi speech drops the inherent "a")
               ─► ITRANS (``indic-transliteration``) ─► Hinglish letters (Ch -> chh, M -> n, long vowels short)

Schwa deletion follows the usual rule for Hindi (Ohala 1983): the inherent vowel of a consonant is silent at
the end of a word of two or more letters ("दाल" -> "dal") and between a vowel-bearing letter and a
consonant that carries a vowel ("समझना" -> "samajhna", "बदबू" -> "badbu"), applied from right to left.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

#: a run of Devanagari letters, marks and digits (it starts with one; joiners inside a run belong to it);
#: the danda (।, ॥) is punctuation and stays as it is
DEVANAGARI_RUN = re.compile(r"[\u0900-\u0963\u0966-\u097F][\u0900-\u0963\u0966-\u097F\u200C\u200D]*")
_CONSONANT = re.compile(r"[\u0915-\u0939\u0958-\u095F\u0978-\u097F]")
_INDEPENDENT_VOWEL = re.compile(r"[\u0904-\u0914\u0960\u0961\u0972-\u0977\u0950]")
_VOWEL_SIGN = re.compile(r"[\u093A\u093B\u093E-\u094C\u094E\u094F\u0955-\u0957\u0962\u0963]")
_NASAL_OR_VISARGA = re.compile(r"[\u0900-\u0903]")
NUKTA, VIRAMA = "\u093c", "\u094d"
#: signs ITRANS has no letters for, written as the nearest sign it has (the English "o" of "कॉपी", the "e" of "ऍ")
_BEFORE_ITRANS = str.maketrans({"\u0949": "\u094b", "\u0911": "\u0913", "\u0945": "\u0947", "\u090d": "\u090f"})
#: ITRANS spellings (case matters) and the letters Hinglish typists use for them; longest first
_ITRANS_TO_HINGLISH = (
    ("j~n", "gy"), ("RRi", "ri"), ("RRI", "ri"), ("LLi", "li"), ("LLI", "li"), ("Ch", "chh"), ("OM", "om"),
    ("~N", "n"), ("~n", "n"), (".N", "n"), ("M", "n"), ("H", ""), ("K", "kh"), ("G", "g"), ("q", "k"),
)  # fmt: skip
_ITRANS_PATTERN = re.compile("|".join(re.escape(a) for a, _ in _ITRANS_TO_HINGLISH))
_ITRANS_MAP = dict(_ITRANS_TO_HINGLISH)
#: a nasal sign at the end of a word after e, ai or i, which Hinglish leaves unwritten
_FINAL_NASAL = re.compile(r"(e|ai|i|I)(?:M|\.N)$")


@functools.lru_cache(maxsize=65536)
def romanise(word: str) -> str:
    """A Devanagari word as it is commonly typed in Latin letters ("खाना" -> "khana", "खिचड़ी" -> "khichdi")."""
    from indic_transliteration import sanscript

    spoken = _delete_schwas(unicodedata.normalize("NFC", word).translate(_BEFORE_ITRANS))
    itrans = sanscript.transliterate(spoken, sanscript.DEVANAGARI, sanscript.ITRANS)
    itrans = _FINAL_NASAL.sub(r"\1", itrans)  # "में" -> "me", "नहीं" -> "nahi", "हैं" -> "hai" ("bachchon" keeps its n)
    latin = _ITRANS_PATTERN.sub(lambda m: _ITRANS_MAP[m.group(0)], itrans).lower()
    latin = re.sub(r"[^a-z0-9]", "", latin)  # nukta dots, joiners, avagraha and other ITRANS marks
    return re.sub(r"(aa|ii|uu)", lambda m: m.group(0)[0], latin)  # long vowels as phones type them


def romanise_text(text: str) -> str:
    """``text`` with every Devanagari run romanised (``romanise``); everything else kept as it is."""
    return DEVANAGARI_RUN.sub(lambda m: romanise(m.group(0)), text)


#: the Brahmi-derived scripts of the ten languages besides Hindi and Marathi (Bengali to Malayalam), whose Unicode
#: blocks follow Devanagari's layout letter for letter
INDIC_BLOCKS = {"BENGALI": 0x0980, "GURMUKHI": 0x0A00, "GUJARATI": 0x0A80, "ORIYA": 0x0B00, "TAMIL": 0x0B80,
                "TELUGU": 0x0C00, "KANNADA": 0x0C80, "MALAYALAM": 0x0D00}  # fmt: skip
#: letters and signs whose Unicode name has no Devanagari twin, by the name's part after the script, written as
#: the Devanagari that sounds like them ("" drops a sign that only doubles or decorates)
_NO_TWIN = {
    "LETTER EE": "ए", "LETTER OO": "ओ", "VOWEL SIGN EE": "\u0947", "VOWEL SIGN OO": "\u094b",
    "LETTER KHANDA TA": "त\u094d", "LETTER RA WITH MIDDLE DIAGONAL": "र", "LETTER RA WITH LOWER DIAGONAL": "व",
    "SIGN BINDI": "\u0902", "TIPPI": "\u0902", "SIGN ADAK BINDI": "\u0901", "ADDAK": "", "IRI": "इ", "URA": "उ",
    "SIGN YAKASH": "", "LETTER WA": "व", "LETTER TSA": "च", "LETTER DZA": "ज", "LETTER RRRA": "ऱ",
    "LETTER NAKAARA POLLU": "न\u094d", "LETTER TTTA": "ट", "SIGN VERTICAL BAR VIRAMA": "\u094d",
    "SIGN CIRCULAR VIRAMA": "\u094d", "LETTER DOT REPH": "र\u094d", "LETTER CHILLU M": "म\u094d",
    "LETTER CHILLU Y": "य\u094d", "LETTER CHILLU LLL": "ऴ\u094d", "LETTER CHILLU NN": "ण\u094d",
    "LETTER CHILLU N": "न\u094d", "LETTER CHILLU RR": "र\u094d", "LETTER CHILLU L": "ल\u094d",
    "LETTER CHILLU LL": "ळ\u094d", "LETTER CHILLU K": "क\u094d", "SIGN COMBINING ANUSVARA ABOVE": "\u0902",
    "SIGN COMBINING CANDRABINDU ABOVE": "\u0901", "LETTER VEDIC ANUSVARA": "\u0902",
}  # fmt: skip


@functools.cache
def _to_devanagari_table() -> dict[int, str]:
    """Each letter, sign and digit of ``INDIC_BLOCKS`` to the Devanagari of the same Unicode name (``_NO_TWIN``
    where there is none); numbers, fractions and currency signs are left out and stay as written."""
    table: dict[int, str] = {}
    for script, start in INDIC_BLOCKS.items():
        for code in range(start, start + 0x80):
            name = unicodedata.name(chr(code), "")
            if not name.startswith(script + " "):
                continue
            part = name[len(script) + 1 :]
            try:
                table[code] = unicodedata.lookup("DEVANAGARI " + part)
            except KeyError:
                if part in _NO_TWIN:
                    table[code] = _NO_TWIN[part]
    return table


def to_devanagari(text: str) -> str:
    """``text`` with Bengali, Gurmukhi, Gujarati, Odia, Tamil, Telugu, Kannada and Malayalam letters written as
    the Devanagari letters of the same sound ("குழந்தை" -> "कुऴन्तै"); every other character kept."""
    return unicodedata.normalize("NFC", text).translate(_to_devanagari_table())


def romanise_every_script(text: str) -> str:
    """``text`` with every run of an Indian script but Urdu's written in Latin letters (``to_devanagari``, then
    ``romanise_text``): "ছেলেরা বমি করেছে" and "chelera bomi koreche" meet in one script."""
    return romanise_text(to_devanagari(text))


#: spelling variants folded together, in order: (pattern, replacement)
_FOLDS = (
    (re.compile(r"c+h?c*h+"), "ch"),  # chh, cch, chch, cchh -> ch ("bachche", "bacche", "bachhe")
    (re.compile(r"ee|ii"), "i"),
    (re.compile(r"oo|uu"), "u"),
    (re.compile(r"aa+"), "a"),
    (re.compile(r"w"), "v"),
    (re.compile(r"z"), "j"),
    (re.compile(r"([b-df-hj-np-tv-z])\1+"), r"\1"),  # doubled consonants single ("khatta" -> "khata")
    (re.compile(r"(?<=[b-df-hj-np-tv-z])y\b"), "i"),  # a word-final y after a consonant ("ulty" -> "ulti")
)


def fold_spelling(text: str) -> str:
    """``text`` in lower case with common romanised spelling variants made one (Latin letters only change)."""
    folded = text.lower()
    for pattern, replacement in _FOLDS:
        folded = pattern.sub(replacement, folded)
    return folded


class _Letter(NamedTuple):
    """A letter of a Devanagari word with its nukta and signs: ``word[start:end]``."""

    start: int
    end: int
    kind: str  # schwa (a consonant with its inherent vowel), vowel (a vowel sign, an independent vowel or a nasal
    # sign after a consonant), dead (a consonant with a virama) or other (digits, joiners, anything else)


def _delete_schwas(word: str) -> str:
    """``word`` with a virama after each consonant whose inherent vowel Hindi speech drops."""
    letters = [letter for letter in _letters(word) if letter.kind != "other"]
    silent: set[int] = set()  # the ends of the letters whose schwa is dropped

    def sounds_a_vowel(letter: _Letter) -> bool:
        return letter.kind == "vowel" or (letter.kind == "schwa" and letter.end not in silent)

    for i in range(len(letters) - 1, 0, -1):  # right to left; the first letter keeps its vowel
        letter = letters[i]
        if letter.kind != "schwa":
            continue
        if i == len(letters) - 1:  # the end of a word of two letters or more: "दाल" -> "दाल्"
            if letter.end == len(word.rstrip("\u200c\u200d")):
                silent.add(letter.end)
            continue
        before, after = letters[i - 1], letters[i + 1]
        if sounds_a_vowel(before) and _CONSONANT.match(word[after.start]) and sounds_a_vowel(after):
            silent.add(letter.end)  # V C(a) C V: "समझना" -> "समझ्ना"
    return "".join(VIRAMA + c if i in silent else c for i, c in enumerate(word)) + (
        VIRAMA if len(word) in silent else ""
    )


def _letters(word: str) -> list[_Letter]:
    """Each letter of ``word`` with its nukta and signs, and what it sounds (``_Letter.kind``)."""
    letters: list[_Letter] = []
    i = 0
    while i < len(word):
        start, c = i, word[i]
        i += 1
        if _CONSONANT.match(c):
            if i < len(word) and word[i] == NUKTA:
                i += 1
            kind = "schwa"
            if i < len(word) and word[i] == VIRAMA:
                kind, i = "dead", i + 1
            elif i < len(word) and _VOWEL_SIGN.match(word[i]):
                kind, i = "vowel", i + 1
            while i < len(word) and _NASAL_OR_VISARGA.match(word[i]):
                kind, i = ("vowel" if kind == "schwa" else kind), i + 1
        elif _INDEPENDENT_VOWEL.match(c):
            kind = "vowel"
            while i < len(word) and _NASAL_OR_VISARGA.match(word[i]):
                i += 1
        else:
            kind = "other"
        letters.append(_Letter(start, i, kind))
    return letters
