"""How bad a complaint is, read from its words: a death or a hospital admission, and how many children it
names, beside the urgency of its labels — the triage queue's first key.

    severity = 1,000,000 × (a death or a hospital admission is mentioned)
             +    10,000 × (2 high, 1 medium, 0 low urgency)
             +             (the most children named, at most 9,999)

so the triage order is: a death or a hospital admission first, then the most urgent labels, then the most
children affected ("12 children vomiting, 3 in hospital" heads the queue; "2 children vomited" comes after it).
The words are read in English, romanised Hindi and Devanagari (digits in both scripts and number words up to
a hundred: "12 bachche", "teen bachche", "बारह बच्चे", "१२ छात्र", "three children"). No model is involved:
the same text always gets the same severity, and an officer's correction changes it only through the urgency.
"""

from __future__ import annotations

import re

from .labels import urgency_rank
from .text import normalize

#: a death or a hospital admission, in English, romanised Hindi and Devanagari (the alert rule of the same name)
DEATH_OR_HOSPITAL = (
    "died", "death", "deaths", "passed away", "hospital", "hospitals", "hospitalised", "hospitalized",
    "hospitalisation", "hospitalization", "admitted", "icu",
    "maut", "mar gaya", "mar gayi", "mar gai", "mar gaye", "aspatal", "aspataal", "hospital me", "bhartee",
    "bharti kiya", "bharti kiye", "bharti karaya", "bharti karwaya", "bharti hua", "bharti hue", "bharti hai",
    "bharti hain",
    "मौत", "मृत्यु", "मर गया", "मर गयी", "मर गई", "मर गए", "अस्पताल", "अस्पतालों", "भर्ती",
)  # fmt: skip
#: words for children (and pupils), in the forms a complaint uses
CHILD_WORDS = (
    "child", "children", "childrens", "kid", "kids", "student", "students", "pupil", "pupils", "boy", "boys", "girl",
    "girls", "baccha", "bachcha", "bacha", "bachche", "bacche", "bachhe", "bache", "bachchon", "bachon", "bacchon",
    "bachho", "bachcho", "bachchey", "bacchey", "chhatra", "chatra", "ladke", "ladkiyan", "ladkiyon", "ladko",
    "बच्चा", "बच्चे", "बच्चों", "बच्चो", "बच्ची", "बच्चियों", "बालक", "बालकों", "बालिका", "बालिकाओं", "छात्र",
    "छात्रों", "छात्रा", "छात्राओं", "विद्यार्थी", "विद्यार्थियों", "लड़के", "लड़कों", "लड़कियां", "लड़कियाँ",
    "लड़कियों",
)  # fmt: skip
#: number words up to a hundred (English, romanised Hindi, Devanagari) -> the number
NUMBER_WORDS: dict[str, int] = {
    **dict.fromkeys(("one", "ek", "एक"), 1), **dict.fromkeys(("two", "do", "दो"), 2),
    **dict.fromkeys(("three", "teen", "tin", "तीन"), 3), **dict.fromkeys(("four", "char", "chaar", "चार"), 4),
    **dict.fromkeys(("five", "panch", "paanch", "पांच", "पाँच"), 5),
    **dict.fromkeys(("six", "chhe", "chah", "chhah", "छह", "छः", "छे"), 6), **dict.fromkeys(("seven", "saat", "सात"), 7),
    **dict.fromkeys(("eight", "aath", "आठ"), 8), **dict.fromkeys(("nine", "nau", "नौ"), 9),
    **dict.fromkeys(("ten", "das", "dus", "दस"), 10), **dict.fromkeys(("eleven", "gyarah", "ग्यारह"), 11),
    **dict.fromkeys(("twelve", "dozen", "barah", "baarah", "बारह", "दर्जन"), 12),
    **dict.fromkeys(("fifteen", "pandrah", "पंद्रह", "पन्द्रह"), 15), **dict.fromkeys(("twenty", "bees", "बीस"), 20),
    **dict.fromkeys(("twenty five", "pachees", "pachis", "पच्चीस"), 25), **dict.fromkeys(("thirty", "tees", "तीस"), 30),
    **dict.fromkeys(("forty", "chalis", "chaalis", "चालीस"), 40),
    **dict.fromkeys(("fifty", "pachas", "pachaas", "पचास"), 50),
    **dict.fromkeys(("hundred", "sau", "सौ"), 100),
}  # fmt: skip
MAX_CHILDREN = 9_999
_LETTER = r"[\w\u0900-\u097f]"  # a letter, digit or Devanagari sign (a vowel sign is no \w)
_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")
#: a number (digits, or a number word) and, within two words after it, a word for children
_NUMBER = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
_CHILDREN = re.compile(
    rf"(?<!{_LETTER})(?P<n>[0-9]{{1,4}}|{_NUMBER})(?:\s*\+)?(?:\s+(?:se\s+)?(?:adhik|zyada|jyada|more|से|अधिक|ज़्यादा"
    rf"|ज्यादा|over|than)){{0,2}}\s+(?:{_LETTER}+\s+)?(?:{'|'.join(re.escape(w) for w in CHILD_WORDS)})(?!{_LETTER})"
)


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A phrase found as whole words of ``text.normalize``d text, its spaces matching any run of white space;
    ValueError for an empty phrase."""
    words = normalize(phrase).split()
    if not words:
        raise ValueError("a keyword is empty")
    return re.compile(rf"(?<!{_LETTER})" + r"\s+".join(re.escape(w) for w in words) + rf"(?!{_LETTER})")


_DEATH_OR_HOSPITAL = tuple(phrase_pattern(k) for k in DEATH_OR_HOSPITAL)


def death_or_hospital(text: str) -> bool:
    """Whether ``text`` mentions a death or a hospital admission (``DEATH_OR_HOSPITAL``, whole words)."""
    folded = normalize(text)
    return any(p.search(folded) for p in _DEATH_OR_HOSPITAL)


def children_named(text: str) -> int:
    """The most children ``text`` says a number of ("12 children", "teen bachche", "बारह बच्चे"), 0 for none."""
    folded = normalize(text).translate(_DIGITS)
    found = [int(n) if n.isdigit() else NUMBER_WORDS[n] for n in (m.group("n") for m in _CHILDREN.finditer(folded))]
    return min(max(found, default=0), MAX_CHILDREN)


def severity(text: str, urgency: str) -> int:
    """The triage key of a complaint with ``text`` and labels of ``urgency`` (see the module docstring)."""
    points = 2 - urgency_rank(urgency)
    return 1_000_000 * death_or_hospital(text) + 10_000 * points + children_named(text)
