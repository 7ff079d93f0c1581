"""Text normalisation, grapheme clusters and script detection; no model knowledge.

BERT's uncased normaliser strips "accents" by dropping every non-spacing mark (Unicode category Mn)
after an NFD decomposition. That is right for Latin ("Café" -> "cafe") and wrong for the Indic
scripts, whose vowel signs, nukta, anusvara and virama are Mn marks: "खाने" would become "खान". The
normaliser here does what the checkpoint expects for Latin (and Greek, Cyrillic, ...) and keeps every
mark of a Brahmic script:

    text -> clean control characters and whitespace -> NFD -> drop Mn marks that are not Brahmic
         -> NFC -> lowercase (when the checkpoint is uncased)

It is built as a ``tokenizers`` normaliser so that the tokenizer tracks character offsets through it
(word spans always point into the text as given), and ``normalize`` applies the very same object.

BERT's pre-tokenizer splits words at whitespace and punctuation only, and an emoji is neither: in
"funny😂" the whole word is one piece the English vocabulary cannot spell, so "funny" is lost to
``[UNK]``. ``bert_pre_tokenizer`` first sets every emoji apart as a word of its own (with its skin
tone; a flag's two letters stay together):

    "khana🤮 tha 😂😂 👍🏻"  ->  khana | 🤮 | tha | 😂 | 😂 | 👍🏻
"""

from __future__ import annotations

import bisect
import functools
import unicodedata

import regex
from tokenizers import Regex, normalizers, pre_tokenizers

#: scripts whose combining marks are letters (vowel signs, nukta, virama), never accents to strip
BRAHMIC_SCRIPTS: tuple[str, ...] = (
    "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam",
    "Sinhala", "Tibetan", "Thai", "Lao", "Myanmar", "Khmer",
)  # fmt: skip

#: a non-spacing mark that does not belong to a Brahmic script (Latin accents are script "Inherited")
_STRIPPABLE_MARK = r"[\p{Mn}&&[^" + "".join(rf"\p{{{s}}}" for s in BRAHMIC_SCRIPTS) + r"]]"

#: one emoji or pictographic symbol: the emoji blocks (faces, hands, hearts, flags, skin tones), miscellaneous
#: symbols and dingbats (❤, ☺, ✌, ✅) and the arrows and stars block (⭐); joiners and variation selectors are
#: format characters, which the normaliser already removes
EMOJI = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff]"
#: what one emoji looks like on screen: a flag (two regional-indicator letters), or an emoji with any skin tones
EMOJI_WORD = "[\U0001f1e6-\U0001f1ff]{2}|" + EMOJI + "[\U0001f3fb-\U0001f3ff]*"

#: a web address, or a short link whose punctuation was spaced out on the way ("https // t co / AbC12")
URL = r"(?i)(?:https?://|www\.)\S+|https? ?// ?t ?\.? ?co ?/ ?\w+"
#: what the encoder reads in place of a web address, whose characters are noise to it
LINK_WORD = "link"

#: values of the ``script`` column and of ``detect_script``
#: ``latn``: Latin letters typing a language other than English and Hindi (romanised Tamil, Bengali, ...), which a
#: data file names (``detect_script`` reads such text as ``latn-en`` or ``latn-hi``)
SCRIPTS: tuple[str, ...] = ("latn-en", "latn-hi", "deva", "mixed", "other", "latn")

#: common Hindi function words and complaint words in Latin script; two different ones mark romanised Hindi
HINDI_MARKERS = frozenset(
    "hai hain tha thi nahi nahin nhi mein ka ki ke ko se aur bhi kya koi bahut raha rahe rahi gaya gayi "
    "hua hui diya jata jaata hota wala wali wale kuch sab abhi khana khaana bachhe bachche bacche bache bachhon "
    "bachon bacchon baccho hamare hamara humare mera meri mere kar karte karta kiya liye gaye gye diye "
    "sirf roz lekin toh bhai ji".split()
)


@functools.cache
def bert_normalizer(
    *, lowercase: bool = True, strip_accents: bool | None = None, links: bool = False
) -> normalizers.Normalizer:
    """BERT's normaliser with Brahmic marks kept; ``strip_accents=None`` follows ``lowercase`` as BERT does.

    ``links``: every web address reads as the one word ``LINK_WORD`` (the offsets still cover the whole address)."""
    strip = lowercase if strip_accents is None else strip_accents
    steps = [normalizers.Replace(Regex(URL), LINK_WORD)] if links else []
    steps += [
        normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False)
    ]
    if strip:
        steps += [normalizers.NFD(), normalizers.Replace(Regex(_STRIPPABLE_MARK), "")]
    steps.append(normalizers.NFC())
    if lowercase:
        steps.append(normalizers.Lowercase())
    return normalizers.Sequence(steps)


def bert_pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    """BERT's pre-tokenizer (whitespace, then each punctuation mark alone) with every emoji a word of its own."""
    return pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(EMOJI_WORD), behavior="isolated"), pre_tokenizers.BertPreTokenizer()]
    )


def normalize(text: str, *, lowercase: bool = True, strip_accents: bool | None = None) -> str:
    """``text`` as the tokenizer of an (un)cased checkpoint sees it (see ``bert_normalizer``)."""
    return bert_normalizer(lowercase=lowercase, strip_accents=strip_accents).normalize_str(text)


def grapheme_starts(text: str) -> list[int]:
    """Character offsets where a user-perceived character (extended grapheme cluster) starts, plus len(text)."""
    return [m.start() for m in regex.finditer(r"\X", text)] + [len(text)]


def snap_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Widen each (start, end) span to whole grapheme clusters, so no word starts or ends inside a letter."""
    starts = grapheme_starts(text)  # sorted, ending with len(text)
    snapped = []
    for s, e in spans:
        before = bisect.bisect_right(starts, s) - 1  # the last boundary at or before s
        after = bisect.bisect_left(starts, e)  # the first boundary at or after e
        snapped.append((starts[before] if before >= 0 else 0, starts[after] if after < len(starts) else len(text)))
    return snapped


def widen_to_links(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each (start, end) span that falls inside a web address of ``text`` (``URL``) widened to the whole address:
    the normaliser reads an address as one word, whose span must show all of it."""
    lowered = text.lower()
    if "http" not in lowered and "www." not in lowered:
        return spans
    links = [m.span() for m in regex.finditer(URL, text)]
    return [next(((a, b) for a, b in links if a <= s and e <= b), (s, e)) for s, e in spans]


def devanagari_share(text: str) -> float:
    """Share of the letters and marks of ``text`` that are Devanagari (0.0 when it has none)."""
    letters = [c for c in text if c.isalpha() or unicodedata.category(c)[0] == "M"]
    if not letters:
        return 0.0
    return sum("\u0900" <= c <= "\u097f" or "\ua8e0" <= c <= "\ua8ff" for c in letters) / len(letters)


def detect_script(text: str) -> str:
    """``deva``, ``mixed``, ``latn-hi`` (romanised Hindi), ``latn-en`` or ``other``, from the letters and words of
    ``text``.

    Mostly Devanagari letters (80 % or more) is ``deva``; from 5 % up, ``mixed``; mostly letters of another script
    (Tamil, Bengali, Urdu, ...: ``languages.detect_language`` names its language) is ``other``; otherwise Latin
    text with two different common Hindi words is ``latn-hi`` and the rest ``latn-en``.
    """
    share = devanagari_share(text)
    if share >= 0.8:
        return "deva"
    if share >= 0.05:
        return "mixed"
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c < "\u0250" or "\u1e00" <= c <= "\u1eff" for c in letters) < len(letters) / 2:
        return "other"
    words = {w.lower() for w in regex.findall(r"[\p{L}\p{M}]+", text)}
    return "latn-hi" if len(words & HINDI_MARKERS) >= 2 else "latn-en"


#: Unicode categories of characters that show nothing on their own: controls, format characters (zero-width
#: spaces and joiners, direction marks), surrogates, separators and combining marks without a letter to sit on
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"})


def check_text(text: object, max_chars: int | None = None) -> str:
    """``text`` if it is a non-empty string of at most ``max_chars`` characters; else a ValueError saying why."""
    if not isinstance(text, str):
        raise ValueError(f"the text must be a string, not {type(text).__name__}")
    if not text.strip():
        raise ValueError("the text is empty (or only whitespace): expected the complaint's words")
    if "\x00" in text:
        raise ValueError("the text contains a NUL character (\\x00): remove it; no complaint needs one")
    surrogate = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
    if surrogate is not None:
        raise ValueError(
            f"the text holds a lone surrogate (U+{ord(text[surrogate]):04X} at character {surrogate}), which is not "
            "a character: send the text as valid UTF-8 (a JSON \\ud83d escape must be followed by its \\udc.. pair)"
        )
    if all(unicodedata.category(c) in INVISIBLE_CATEGORIES or c == "\ufffd" for c in text):
        raise ValueError(
            "the text has no visible characters (only spaces, zero-width, formatting or private-use characters, or "
            "stray combining marks): expected the complaint's words"
        )
    if max_chars is not None and len(text) > max_chars:
        raise ValueError(
            f"the text is {len(text):,} characters long; the limit is {max_chars:,}: split it into shorter texts"
        )
    return text
