"""Which language a complaint is written in, from its letters and words; no model knowledge.

The complaint line of a state receives English, Hindi (Devanagari, romanised or mixed) and India's
other languages. Most of them have a script of their own, so the script with the most letters names the
language; two cases need words:

- Devanagari is Hindi or Marathi: Marathi's own function words, endings and letter ("आहे", "नाही", "मध्ये",
  "आणि", "-च्या", "ळ") against Hindi's ("है", "नहीं", "में", "और");
- Latin letters are English or romanised Hindi (``text.detect_script``: two common Hindi words).

A text with too few letters to tell is ``UNDETERMINED``. Codes are ISO 639-1.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import regex

from .text import detect_script

#: code -> English name, for every language mealwatch identifies
LANGUAGES: dict[str, str] = {
    "en": "English", "hi": "Hindi", "mr": "Marathi", "bn": "Bengali", "ta": "Tamil", "te": "Telugu",
    "kn": "Kannada", "ml": "Malayalam", "gu": "Gujarati", "pa": "Punjabi", "or": "Odia", "ur": "Urdu",
}  # fmt: skip
#: each language's own name, as the page shows it to an officer
NATIVE_NAMES: dict[str, str] = {
    "en": "English", "hi": "हिन्दी", "mr": "मराठी", "bn": "বাংলা", "ta": "தமிழ்", "te": "తెలుగు", "kn": "ಕನ್ನಡ",
    "ml": "മലയാളം", "gu": "ગુજરાતી", "pa": "ਪੰਜਾਬੀ", "or": "ଓଡ଼ିଆ", "ur": "اردو",
}  # fmt: skip
UNDETERMINED = "und"

#: Unicode block (first, last code point) -> the language its script is written for here
SCRIPT_BLOCKS: tuple[tuple[int, int, str], ...] = (
    (0x0900, 0x097F, "deva"), (0xA8E0, 0xA8FF, "deva"), (0x0980, 0x09FF, "bn"), (0x0A00, 0x0A7F, "pa"),
    (0x0A80, 0x0AFF, "gu"), (0x0B00, 0x0B7F, "or"), (0x0B80, 0x0BFF, "ta"), (0x0C00, 0x0C7F, "te"),
    (0x0C80, 0x0CFF, "kn"), (0x0D00, 0x0D7F, "ml"), (0x0600, 0x06FF, "ur"), (0x0750, 0x077F, "ur"),
    (0xFB50, 0xFDFF, "ur"), (0xFE70, 0xFEFF, "ur"),
)  # fmt: skip
#: a script with at least this share of a text's letters names its language, even beside more Latin letters
MIN_SHARE = 0.05

MARATHI_WORDS = frozenset(
    "आहे आहेत नाही नाहीत मध्ये आणि होते होता होती झाले झाला झाली केले केला केली आम्ही तुम्ही त्यांनी त्याला तिला "
    "त्यांना आमच्या आमची आमचे आमचा मुलांना मुले मुलांनी शाळेत शाळेतील जेवणात दिले दिली दिला पण काय कोणी खूप इथे "
    "तिथे नव्हते नव्हता सांगितले म्हणून म्हणाले लागले येत जात असते असतो नसते वर्षे दिवसांपासून कृपया साहेब".split()
)
HINDI_WORDS = frozenset(
    "है हैं था थी थे नहीं नही में मे और के की का को से ने भी गया गई गए गये हुआ हुई हुए दिया किया बच्चे बच्चों "
    "खाना खाने लेकिन कोई बहुत रहा रही रहे जाता जाती वाले साथ यह वह हम हमारे मेरे मेरी कि तो पर क्या कर "
    "करते करता बाद तक जब".split()
)
#: word endings only Marathi uses (the genitive "-च्या", the plural dative "-ांना", the present plural "-तात",
#: the conjunctive "-ऊन": "येऊन", "पिऊन")
MARATHI_ENDINGS = ("च्या", "ांना", "तात", "ऊन")
#: Hindi words that end like Marathi ones
HINDI_LOOKALIKES = frozenset("खून कानून जून सुकून नाखून".split())
#: the retroflex lateral "ळ", common in Marathi words and absent from Hindi ones
MARATHI_LETTER = "\u0933"
_WORD = regex.compile(r"[\p{L}\p{M}]+")


def language_form(language: str, script: str | None) -> str:
    """A language as written: ``ta`` in its own script, ``ta-latn`` typed in Latin letters (``hi-latn`` for romanised
    Hindi); English is ``en``."""
    latin = script is not None and script.startswith("latn")
    return f"{language}-latn" if latin and language not in ("en", UNDETERMINED) else language


def script_counts(text: str) -> Counter:
    """Letters (and combining marks) of ``text`` per script key of ``SCRIPT_BLOCKS``, ``latin`` and ``other``."""
    counts: Counter = Counter()
    for c in text:
        if not (c.isalpha() or unicodedata.category(c)[0] == "M"):
            continue
        code = ord(c)
        key = next((k for lo, hi, k in SCRIPT_BLOCKS if lo <= code <= hi), None)
        counts[key or ("latin" if code < 0x0250 or 0x1E00 <= code <= 0x1EFF else "other")] += 1
    return counts


def marathi_word(word: str) -> bool:
    """Whether ``word`` is one only Marathi uses: a function word, an ending of its own, or with "ळ"."""
    if word in MARATHI_WORDS or MARATHI_LETTER in word:
        return True
    return word.endswith(MARATHI_ENDINGS) and word not in HINDI_LOOKALIKES


def devanagari_language(text: str) -> str:
    """``mr`` when Marathi's words and endings outnumber Hindi's in ``text``, else ``hi``."""
    words = _WORD.findall(text)
    marathi = sum(marathi_word(w) for w in words)
    hindi = sum(w in HINDI_WORDS for w in words)
    return "mr" if marathi > hindi else "hi"


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language ``text`` is written in (one of ``LANGUAGES``), or ``UNDETERMINED``."""
    counts = script_counts(text)
    letters = sum(counts.values())
    if letters == 0:
        return UNDETERMINED
    indic = [(n, key) for key, n in counts.items() if key not in ("latin", "other")]
    if indic:
        n, key = max(indic)
        if n / letters >= MIN_SHARE:
            return devanagari_language(text) if key == "deva" else key
    if counts["latin"] == 0:
        return UNDETERMINED
    return "hi" if detect_script(text) == "latn-hi" else "en"
