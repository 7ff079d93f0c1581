"""What a complaint is about, in words of any language the complaints come in: a small multilingual lexicon.

Each concept (a lizard, worms, vomiting, a hospital, watery dal, a late meal, ...) lists how it is written in
English, Hindi (Devanagari and romanised), Tamil, Telugu, Kannada, Bengali, Marathi, Gujarati, Urdu, Malayalam,
Punjabi and Odia (``lexicon.CONCEPTS``, where the forms' syntax is described). A form is found at the start of a
word of the ``fold``ed text (so inflections and agglutinated endings still match: "பல்லி" finds "பல்லியை"); a
form ending in ``$`` must be the whole word ("बाल$": hair, not "बालक", a boy). Search adds the share of a query's
concepts that a complaint also has to the cosine of their meanings (``engine.Search``; the weight chosen on
data/search's validation queries), which carries a short query across scripts ("lizard in food" to "சாம்பார்ல
பல்லி") where the small encoder alone prefers complaints in the query's own language; the concepts shared are
also part of the answer's "why".
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text import normalize
from .lexicon import CONCEPTS

#: bumped when the lexicon changes: the masks stored with the vectors are then computed again (``engine.Search``)
LEXICON_VERSION = 2
#: concept -> its bit in a mask (at most 64 concepts)
BITS = {name: 1 << i for i, name in enumerate(CONCEPTS)}
assert len(BITS) <= 64
_LETTER = r"[\w\u0900-\u0dff\u0600-\u06ff]"
#: what lets up to three words stand between the parts of a form written "a … b"
_GAP = r"(?:\s+\S+){0,3}\s+"
#: spelling variants one keyboard or writer uses for another, written the one way
_SAME = str.maketrans({
    "\u093c": None, "\u09bc": None, "\u0a3c": None, "\u0abc": None, "\u0b3c": None,  # nukta: कीड़े = कीडे
    "\u200c": None, "\u200d": None,  # (non-)joiners
    "\u0901": "\u0902", "\u0a70": "\u0a02",  # Devanagari chandrabindu, Gurmukhi tippi: as the anusvara, bindi
    "\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9",  # Arabic keyboard's yeh, kaf: Urdu's
    "\u0647": "\u06c1", "\u0629": "\u06c1",  # heh, teh marbuta: Urdu's heh goal
})  # fmt: skip
#: Malayalam chillu letters written as consonant + virama (+ joiner) in older text
_CHILLU = re.compile("([\u0d23\u0d28\u0d30\u0d32\u0d33\u0d15])\u0d4d\u200d")
_CHILLU_OF = {"\u0d23": "\u0d7a", "\u0d28": "\u0d7b", "\u0d30": "\u0d7c", "\u0d32": "\u0d7d", "\u0d33": "\u0d7e",
              "\u0d15": "\u0d7f"}  # fmt: skip
#: a form's last virama, dropped where the stem before it is this long or longer (a word ending in a consonant
#: takes its case endings in place of the virama: "காய்ச்சல்", fever, is "காய்ச்சலால்" after an ablative)
_VIRAMA = "\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0c4d\u0ccd\u0d4d"
_STEM_MIN = 5
#: romanised Hindi's long vowels and aspirates written double ("paani", "keede", "chhipkali")
_ROMAN = [(re.compile("aa+"), "a"), (re.compile("ee+"), "i"), (re.compile("ii+"), "i"), (re.compile("oo+"), "u"),
          (re.compile("uu+"), "u"), (re.compile("hh+"), "h")]  # fmt: skip


def fold(text: str) -> str:
    """``text`` as the lexicon compares it: ``text.normalize``d, with the variants of one spelling made one."""
    folded = normalize(_CHILLU.sub(lambda m: _CHILLU_OF[m.group(1)], text)).lower().translate(_SAME)
    for pattern, one in _ROMAN:
        folded = pattern.sub(one, folded)
    return folded


_WORD_START = re.compile(rf"(?<!{_LETTER}){_LETTER}")


def _body(form: str) -> str:
    """A form as a regular expression matched at the start of a word of ``fold``ed text."""
    whole = form.endswith("$")
    parts = [fold(part).split() for part in form.rstrip("$").split("…")]
    last = parts[-1][-1]
    if not whole and last[-1] in _VIRAMA and len(last) > _STEM_MIN:
        parts[-1][-1] = last[:-1]
    body = _GAP.join(r"\s+".join(re.escape(w) for w in words) for words in parts)
    return body + (rf"(?!{_LETTER})" if whole else "")


@lru_cache(maxsize=1)
def _by_first_letter() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """First letter of a form -> (concept, its forms that begin with that letter as one pattern): a word is tried
    only against the forms that can match it."""
    grouped: dict[str, dict[str, list[str]]] = {}
    for name, forms in CONCEPTS.items():
        for form in forms:
            grouped.setdefault(fold(form)[0], {}).setdefault(name, []).append(_body(form))
    return {first: [(name, re.compile("|".join(bodies))) for name, bodies in by_name.items()]
            for first, by_name in grouped.items()}  # fmt: skip


def concepts_of(text: str) -> set[str]:
    """The concepts ``text`` mentions."""
    folded = fold(text)
    candidates = _by_first_letter()
    found: set[str] = set()
    for start in _WORD_START.finditer(folded):
        at = start.start()
        for name, pattern in candidates.get(folded[at], ()):
            if name not in found and pattern.match(folded, at):
                found.add(name)
    return found


def mask_of(names: set[str]) -> int:
    """The concepts as one 64-bit mask (``BITS``)."""
    return sum(BITS[n] for n in names)


def names_of(mask: int) -> list[str]:
    """The concepts of a mask, in the lexicon's order."""
    return [n for n, bit in BITS.items() if mask & bit]
